package bus

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// DefaultBuffer is the default bound of the outbound buffer: the events Publish queues for
// the backend before it drops (and counts) the next.
const DefaultBuffer = 4096

// Send hands one encoded event to the backend. It is called from one goroutine at a time,
// in the order the events were published. The slice is reused after it returns.
type Send func(ctx context.Context, payload []byte) error

// Relay is what every bus shares: the bounded outbound buffer that Publish fills without
// blocking and one goroutine drains in order through the backend's Send, the local
// subscribers that incoming events are fanned out to, the accounting of what was dropped,
// and the EventsLost that tells the subscribers (and, through the backend, the other
// replicas) when events may have been lost.
//
// EventsLost is delivered to the local subscribers when an event this replica published is
// dropped (once until the backend takes an event again), when the connection breaks and when
// it comes back; and it is sent to every replica, as a marker, once the backend takes events
// again after drops. Safe for concurrent use.
type Relay struct {
	out  chan fastmcp.Event
	wake chan struct{} // capacity 1: the connection came back, a marker may be due
	done chan struct{} // closed when the sender returns

	mu   sync.Mutex
	subs atomic.Pointer[[]*subscriber] // copied on write

	lostDue atomic.Bool // events were dropped: a marker is due to the other replicas
	down    atomic.Bool // the connection is broken: events are dropped, not sent

	published, received, dropped, lost, outages, reconnects atomic.Uint64
}

type subscriber struct{ deliver func(fastmcp.Event) }

// NewRelay returns a relay whose outbound buffer holds buffer events (DefaultBuffer when 0).
// Start its sender with Run.
func NewRelay(buffer int) *Relay {
	if buffer <= 0 {
		buffer = DefaultBuffer
	}
	r := &Relay{out: make(chan fastmcp.Event, buffer), wake: make(chan struct{}, 1), done: make(chan struct{})}
	r.subs.Store(&[]*subscriber{})
	return r
}

// Publish queues e for the backend without blocking. An event over the bounds (see Fits), or
// one that finds the buffer full, is dropped and counted, and the subscribers are told.
func (r *Relay) Publish(e fastmcp.Event) {
	if !Fits(e) || e.Kind == 0 {
		r.drop()
		return
	}
	select {
	case r.out <- e:
	default:
		r.drop()
	}
}

// Subscribe registers deliver for every event received, until cancel.
func (r *Relay) Subscribe(deliver func(fastmcp.Event)) (cancel func()) {
	s := &subscriber{deliver}
	r.mu.Lock()
	r.subs.Store(new(append(slices.Clip(*r.subs.Load()), s)))
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		cur := *r.subs.Load()
		if i := slices.Index(cur, s); i >= 0 {
			r.subs.Store(new(slices.Delete(slices.Clone(cur), i, i+1)))
		}
	}
}

// Receive decodes one event from the backend and delivers it to the subscribers; an event it
// cannot read is counted as lost and EventsLost is delivered instead.
func (r *Relay) Receive(payload []byte) {
	e, err := DecodeEvent(payload)
	if err != nil {
		r.ReceiveLost()
		return
	}
	r.received.Add(1)
	r.deliver(e)
}

// ReceiveLost counts an incoming event that could not be delivered and tells the
// subscribers.
func (r *Relay) ReceiveLost() {
	r.lost.Add(1)
	r.deliver(fastmcp.Event{Kind: fastmcp.EventsLost})
}

// Disconnected records that the connection broke: until Reconnected, events are dropped, and
// the subscribers are told once.
func (r *Relay) Disconnected() {
	if !r.down.Swap(true) {
		r.outages.Add(1)
		r.deliver(fastmcp.Event{Kind: fastmcp.EventsLost})
	}
}

// Reconnected records that the connection is back (and receiving again): the subscribers are
// told, since events sent meanwhile were missed, and a marker due for drops goes out.
func (r *Relay) Reconnected() {
	if r.down.Swap(false) {
		r.reconnects.Add(1)
		r.deliver(fastmcp.Event{Kind: fastmcp.EventsLost})
		select {
		case r.wake <- struct{}{}:
		default:
		}
	}
}

// Stats returns the counts so far.
func (r *Relay) Stats() Stats {
	return Stats{
		Published: r.published.Load(), Received: r.received.Load(), Dropped: r.dropped.Load(),
		Lost: r.lost.Load(), Outages: r.outages.Load(), Reconnects: r.reconnects.Load(),
	}
}

// Run sends the queued events through send, in order, until ctx is done; then it returns,
// dropping what is still queued. Call it once, in its own goroutine.
func (r *Relay) Run(ctx context.Context, send Send) {
	defer close(r.done)
	marker := AppendEvent(nil, fastmcp.Event{Kind: fastmcp.EventsLost})
	var buf []byte
	for {
		if r.lostDue.Load() && !r.down.Load() && send(ctx, marker) == nil {
			r.lostDue.Store(false)
		}
		select {
		case <-ctx.Done():
			return
		case <-r.wake:
		case e := <-r.out:
			if r.down.Load() {
				r.drop()
				continue
			}
			buf = AppendEvent(buf[:0], e)
			if send(ctx, buf) != nil {
				r.drop()
				continue
			}
			r.published.Add(1)
			if cap(buf) > 64<<10 {
				buf = nil // one large event: let it go
			}
		}
	}
}

// Wait returns once Run has returned.
func (r *Relay) Wait() { <-r.done }

// drop counts a dropped event; the first of a run of drops tells the local subscribers and
// makes a marker due for the other replicas (whose own subscribers missed it too).
func (r *Relay) drop() {
	r.dropped.Add(1)
	if !r.lostDue.Swap(true) && !r.down.Load() {
		r.deliver(fastmcp.Event{Kind: fastmcp.EventsLost})
	}
}

func (r *Relay) deliver(e fastmcp.Event) {
	for _, s := range *r.subs.Load() {
		s.deliver(e)
	}
}
