package fastmcp

import (
	"slices"
	"sync"
	"sync/atomic"
)

// EventKind names a change a listen stream may opt into.
type EventKind uint8

// The events of subscriptions/listen, then the kinds addressed to one handler (a task's
// watchers, a session's stream, a waiting server-to-client request), which the bus carries
// between replicas like the others. The values are stable: buses put them on the wire.
const (
	ToolsListChanged EventKind = iota + 1
	PromptsListChanged
	ResourcesListChanged
	ResourceUpdated
	// TaskChanged: the task named by Topic changed state in the task store (Data: what its
	// owner's watchers are to be sent, as the tasks extension encodes it).
	TaskChanged
	// SessionMessage: a message for the initialize-era session named by Topic, to whichever
	// replica holds its stream (Data: as the session's transport encodes it).
	SessionMessage
	// Answer: a client's answer to the server-to-client request named by Topic, to whichever
	// replica waits for it (Data: the JSON-RPC response). Topic is the hex SHA-256 of the
	// request id and the principal the answer came with, so that only an answer from the
	// request's own principal completes it.
	Answer
	// EventsLost: the bus may have lost events (its outbound buffer overflowed, or its
	// connection broke or came back). Every listen stream open when it arrives completes
	// gracefully, so its client re-reads and listens again; new streams are accepted as
	// before. A bus delivers it to its own subscribers, and publishes it to the other
	// replicas when events this one published were dropped. Handler-side subscribers
	// ([Server.Subscribe]) see it too, to re-read what they watch.
	EventsLost
	// Relay: a message between the replicas of a package built on the Server, for the
	// handler-side subscriber ([Server.Subscribe]) that knows its Topic; the Server itself
	// does nothing with it (Data: the package's own encoding). Package gateway resumes a
	// call parked on another replica with it.
	Relay
)

// MaxEventData bounds Event.Data: a bus may refuse (and count as dropped) a larger event.
const MaxEventData = 1 << 20

// Event is one change published to listen streams, or one message for a handler on
// whichever replica holds it (the kinds from TaskChanged on). Events are small and
// self-describing; a bus carries all four fields.
type Event struct {
	Kind EventKind
	// URI is the resource that changed, for ResourceUpdated. It reaches the streams that listed
	// exactly this URI in resourceSubscriptions.
	URI string
	// Topic names the addressee of the handler kinds: a task id, a session, a request.
	Topic string
	// Data is the payload of the handler kinds, opaque to the bus, at most MaxEventData
	// bytes. A subscriber must not modify it.
	Data []byte
}

// EventBus carries events to the listen streams of every Server that shares it: it is the seam
// for fanning changes out across replicas (over Redis, NATS, Postgres LISTEN, …). The default,
// when [Config.EventBus] is nil, is in memory and local to one Server.
//
// A Server publishes its catalog changes and the events given to [Server.Publish] with
// Publish, and calls Subscribe once, in NewServer, with the function that fans an event out to
// its own listen streams; it cancels that subscription in [Server.CloseSubscriptions]. A bus
// therefore delivers each event once per subscribed Server (the publishing one included), not
// once per listen stream. A Server that sends requests to initialize-era clients subscribes
// once more, before the first goes out, for the [Answer] events of the other replicas; it
// holds that subscription for its life, so that requests in flight while it drains still get
// their answers. A bus that drops events or loses its connection delivers [EventsLost] to its
// subscribers (see package bus for the shared implementation).
//
// Implementations must be safe for concurrent use.
type EventBus interface {
	// Publish delivers e to every subscriber, possibly later and from another goroutine. It
	// must not block on slow subscribers: it runs on the path that changes the catalog.
	Publish(e Event)
	// Subscribe registers deliver, to be called for every event published until cancel is
	// called. deliver never blocks and may be called concurrently; after cancel returns it is
	// no longer called.
	Subscribe(deliver func(Event)) (cancel func())
}

// Number of list_changed kinds, in the order of their bits in a listen filter.
const numListKinds = 3

// listKind returns the index of a list_changed kind (0 tools, 1 prompts, 2 resources), or -1.
func listKind(k EventKind) int {
	if k >= ToolsListChanged && k <= ResourcesListChanged {
		return int(k - ToolsListChanged)
	}
	return -1
}

// hub fans events out to the listen streams of one Server. It is also the default EventBus.
//
// list_changed events cost O(1) to publish whatever the number of streams: each kind is a
// signal, an epoch whose channel is closed and replaced on every event. A stream remembers the
// epoch it last reported and waits on its channel, so duplicates published while it was busy
// coalesce into one notification, and the publisher never touches a stream's own state: one
// that stopped reading costs it nothing.
//
// resources/updated events go through an index by URI to the streams that listed the URI:
// each has a bounded queue and a wake channel; a full queue ends that stream gracefully (the
// client re-reads) instead of dropping events or blocking the publisher. The index keeps one
// copy of each URI, which every stream that lists it shares.
//
// The hub accounts for the memory its streams hold (see subscriptionCost) and refuses a
// stream that would take it past the budget.
type hub struct {
	buffer int   // bound of each stream's resources/updated queue
	budget int64 // bound of held
	lists  [numListKinds]signal
	lost   signal // fired by EventsLost: every open stream completes

	closed    chan struct{} // closed by close: every stream completes
	closeOnce sync.Once
	cancelBus func() // ends the subscription to a configured EventBus, or nil

	streams atomic.Int64 // open listen streams
	held    atomic.Int64 // bytes the streams and the index hold, as subscriptionCost counts
	// published counts the events delivered; overflows the streams a resources/updated
	// found with a full queue, which end for the client to re-list (see EventStats).
	published, overflows atomic.Uint64
	// lostEvents counts the EventsLost events delivered.
	lostEvents atomic.Uint64

	mu    sync.RWMutex
	byURI map[string]*uriSubscribers // resources/updated subscribers, by URI
	taps  []*tap                     // Subscribe callbacks, copied on write; rarely used
}

// uriSubscribers are the streams that listed one URI: the first inline, so that a URI one
// stream listens to costs one allocation, the others in rest.
type uriSubscribers struct {
	uri   string // the index's copy of the URI, which the streams' lists share
	first *listener
	rest  []*listener
}

// add appends l.
func (u *uriSubscribers) add(l *listener) {
	if u.first == nil {
		u.first = l
		return
	}
	u.rest = append(u.rest, l)
}

// remove takes l out, reporting whether none is left.
func (u *uriSubscribers) remove(l *listener) (empty bool) {
	if u.first == l {
		u.first = nil
		if n := len(u.rest); n > 0 {
			u.first, u.rest[n-1] = u.rest[n-1], nil
			u.rest = u.rest[:n-1]
		}
	} else if i := slices.Index(u.rest, l); i >= 0 {
		last := len(u.rest) - 1
		u.rest[i], u.rest[last] = u.rest[last], nil
		u.rest = u.rest[:last]
	}
	return u.first == nil
}

// The costs the hub counts against its budget: what a stream, each URI it lists, and each
// URI of the index hold, rounded up from what they measure on 64-bit platforms (see
// TestListenMemoryAccounted).
const (
	// streamCost: the listener, its wake channel and the stream's copy of its request id
	// (whose length is added).
	streamCost = 256
	// uriRefCost: a listed URI's place in the stream's list and in the index entry's.
	uriRefCost = 40
	// uriEntryCost: an index entry (map slot, entry, list header) besides the URI's bytes,
	// which count an eighth more for the allocator's rounding (see uriCost).
	uriEntryCost = 128
)

// uriCost is what the index's entry for uri holds.
func uriCost(uri string) int64 { return int64(len(uri)+len(uri)/8) + uriEntryCost }

// newHub returns the hub of a Server and the EventBus the Server publishes to: bus itself,
// subscribed to once with the hub's fan-out, or the hub when bus is nil. budget bounds the
// bytes its streams hold.
func newHub(buffer int, budget int64, bus EventBus) (*hub, EventBus) {
	h := &hub{buffer: buffer, budget: budget, closed: make(chan struct{}), byURI: map[string]*uriSubscribers{}}
	for i := range h.lists {
		h.lists[i].cur.Store(newEpoch())
	}
	h.lost.cur.Store(newEpoch())
	if bus == nil {
		return h, h
	}
	h.cancelBus = bus.Subscribe(h.deliver)
	return h, bus
}

// Publish delivers e to this hub's listen streams and Subscribe callbacks without blocking.
func (h *hub) Publish(e Event) { h.deliver(e) }

// Subscribe registers deliver for every event published to the hub, until cancel.
func (h *hub) Subscribe(deliver func(Event)) (cancel func()) {
	t := &tap{deliver}
	h.mu.Lock()
	h.taps = append(slices.Clip(h.taps), t) // copy on write: deliver reads without the lock
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if i := slices.Index(h.taps, t); i >= 0 {
			h.taps = slices.Delete(slices.Clone(h.taps), i, i+1)
		}
	}
}

// tap is one Subscribe callback; its address identifies it for cancel.
type tap struct{ deliver func(Event) }

// deliver fans e out to the listen streams of this Server. It never blocks and never waits for
// a stream: list_changed is one channel close (the runtime readies the waiting streams),
// resources/updated touches only the streams that listed the URI.
func (h *hub) deliver(e Event) {
	h.published.Add(1)
	if k := listKind(e.Kind); k >= 0 {
		h.lists[k].fire()
	}
	if e.Kind == EventsLost {
		h.lostEvents.Add(1)
		h.lost.fire()
	}
	h.mu.RLock()
	if e.Kind == ResourceUpdated && e.URI != "" {
		if subs := h.byURI[e.URI]; subs != nil {
			h.countOverflow(subs.first.push(e.URI, h.buffer))
			for _, l := range subs.rest {
				h.countOverflow(l.push(e.URI, h.buffer))
			}
		}
	}
	taps := h.taps
	h.mu.RUnlock()
	for _, t := range taps {
		t.deliver(e)
	}
}

// isClosed reports whether close was called.
func (h *hub) isClosed() bool {
	select {
	case <-h.closed:
		return true
	default:
		return false
	}
}

// close ends every listen stream gracefully and refuses new ones. It is idempotent.
func (h *hub) close() {
	h.closeOnce.Do(func() {
		close(h.closed)
		if h.cancelBus != nil {
			h.cancelBus()
		}
	})
}

// subscribe registers a listen stream for the list_changed kinds in the bits of lists (1 tools,
// 2 prompts, 4 resources) and for resources/updated on uris, which the listener owns from now:
// each element is replaced by the index's copy of the URI. idLen is the length of the
// stream's copy of its request id. It reports false, registering nothing, when the stream
// would take the bytes the hub holds past its budget.
func (h *hub) subscribe(lists uint8, uris []string, idLen int) (*listener, bool) {
	l := &listener{base: int32(streamCost + idLen), lost: h.lost.cur.Load()}
	for k := range h.lists {
		if lists&(1<<k) != 0 {
			l.seen[k] = h.lists[k].cur.Load()
		}
	}
	cost := int64(l.base)
	if len(uris) == 0 {
		if !h.reserve(cost) {
			return nil, false
		}
		h.streams.Add(1)
		return l, true
	}
	l.wake = make(chan struct{}, 1)
	h.mu.Lock()
	defer h.mu.Unlock()
	cost += int64(len(uris)) * uriRefCost
	for _, u := range uris {
		if h.byURI[u] == nil {
			cost += uriCost(u)
		}
	}
	if !h.reserve(cost) {
		return nil, false
	}
	for i, u := range uris {
		subs := h.byURI[u]
		if subs == nil {
			subs = &uriSubscribers{uri: u}
			h.byURI[u] = subs
		}
		subs.add(l)
		uris[i] = subs.uri // one copy of the URI, however many streams list it
	}
	l.uris = uris
	h.streams.Add(1)
	return l, true
}

// reserve adds cost to the bytes held unless that would pass the budget.
func (h *hub) reserve(cost int64) bool {
	for {
		held := h.held.Load()
		if held+cost > h.budget {
			return false
		}
		if h.held.CompareAndSwap(held, held+cost) {
			return true
		}
	}
}

// unsubscribe removes a listener registered by subscribe, and returns what it held.
func (h *hub) unsubscribe(l *listener) {
	freed := int64(l.base)
	if len(l.uris) > 0 {
		freed += int64(len(l.uris)) * uriRefCost
		h.mu.Lock()
		for _, u := range l.uris {
			if h.byURI[u].remove(l) {
				delete(h.byURI, u)
				freed += uriCost(u)
			}
		}
		h.mu.Unlock()
	}
	h.held.Add(-freed)
	h.streams.Add(-1)
}

// signal is one list_changed kind: fire closes the current epoch's channel after replacing it.
type signal struct {
	cur atomic.Pointer[epoch]
}

type epoch struct{ done chan struct{} }

func newEpoch() *epoch { return &epoch{done: make(chan struct{})} }

// fire wakes every stream waiting on the current epoch. Each replaced epoch is closed exactly
// once, by the caller whose Swap returned it.
func (g *signal) fire() { close(g.cur.Swap(newEpoch()).done) }

// listener is the hub's state for one listen stream. A stream that opted only into list_changed
// kinds is just its three epoch pointers.
type listener struct {
	seen [numListKinds]*epoch // the epoch last reported per kind; nil when not opted in
	lost *epoch               // the EventsLost epoch when the stream opened: it completes when that closes

	// For resourceSubscriptions only.
	uris     []string      // the URIs indexed (the index's copies), to unindex them
	wake     chan struct{} // capacity 1: a URI was queued, or the queue overflowed
	overflow atomic.Bool   // the queue overflowed: the stream must complete
	base     int32         // the stream's own cost (streamCost plus its id), for unsubscribe
	mu       sync.Mutex
	queue    []string // URIs updated and not yet taken, each at most once
}

// changed reports whether list kind k fired since the stream last reported it, and if so moves
// the stream to the current epoch: any number of events collapse into one report.
func (l *listener) changed(h *hub, k int) bool {
	e := l.seen[k]
	if e == nil {
		return false
	}
	select {
	case <-e.done:
		l.seen[k] = h.lists[k].cur.Load()
		return true
	default:
		return false
	}
}

// waitOn returns the channel that closes when list kind k fires, nil when not opted in.
func (l *listener) waitOn(k int) <-chan struct{} {
	if l.seen[k] == nil {
		return nil
	}
	return l.seen[k].done
}

// push queues uri for the stream unless it is already queued; past max queued URIs it flags
// an overflow instead, reporting it. It never blocks: the wake-up is a non-blocking send.
func (l *listener) push(uri string, max int) (overflowed bool) {
	l.mu.Lock()
	switch {
	case l.overflow.Load() || slices.Contains(l.queue, uri):
		l.mu.Unlock()
		return false
	case len(l.queue) >= max:
		l.overflow.Store(true)
		overflowed = true
	default:
		l.queue = append(l.queue, uri)
	}
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
	return overflowed
}

// take returns the queued URIs and empties the queue; an idle stream keeps no queue memory.
func (l *listener) take() []string {
	l.mu.Lock()
	q := l.queue
	l.queue = nil
	l.mu.Unlock()
	return q
}
