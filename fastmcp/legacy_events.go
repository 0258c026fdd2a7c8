package fastmcp

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/fastmcp-go/fastmcp/decode"
)

// LegacyEvents is one initialize-era connection's subscriptions: the resource URIs it
// subscribed to. Make one with [NewLegacyEvents]; it is safe for concurrent use.
type LegacyEvents struct {
	mu   sync.Mutex
	uris map[string]struct{}
}

// NewLegacyEvents returns an empty subscription set.
func NewLegacyEvents() *LegacyEvents { return &LegacyEvents{uris: map[string]struct{}{}} }

// Subscribe records uri (resources/subscribe). It reports false, recording nothing, when the
// set already holds [MaxResourceSubscriptions] other URIs: a connection holds no more than a
// modern listen stream may list. Subscribing twice is one subscription.
func (ev *LegacyEvents) Subscribe(uri string) bool {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	if _, ok := ev.uris[uri]; ok {
		return true
	}
	if len(ev.uris) >= MaxResourceSubscriptions {
		return false
	}
	ev.uris[uri] = struct{}{}
	return true
}

// Unsubscribe forgets uri (resources/unsubscribe); an unknown uri is a no-op.
func (ev *LegacyEvents) Unsubscribe(uri string) {
	ev.mu.Lock()
	delete(ev.uris, uri)
	ev.mu.Unlock()
}

// subscribed reports whether uri is in the set; a nil set has none.
func (ev *LegacyEvents) subscribed(uri string) bool {
	if ev == nil {
		return false
	}
	ev.mu.Lock()
	_, ok := ev.uris[uri]
	ev.mu.Unlock()
	return ok
}

// serveLegacyEvents writes to sink, until ctx ends, the notifications an initialize-era
// connection gets unasked: notifications/tools/list_changed, prompts/list_changed and
// resources/list_changed when the catalog changes, and notifications/resources/updated for
// the URIs subscribed in ev (none when ev is nil). It writes one at a time; changes that
// arrive while it writes wait in a bounded queue, which never blocks the publisher: a burst
// of list_changed of one kind is one notification, an update of a URI already queued is
// one, and updates past [Config.SubscriptionBuffer] URIs are dropped with a logged warning.
// It returns ctx's error, or the sink's when a write fails.
func (s *Server) serveLegacyEvents(ctx context.Context, ev *LegacyEvents, sink Sink) error {
	return s.subscribeLegacyEvents(ev)(ctx, sink)
}

// subscribeLegacyEvents is serveLegacyEvents in two steps: it subscribes at once,
// and the function it returns serves what was published from then on, until its ctx ends.
// A transport subscribes before the client can see the initialize result and serves on a
// goroutine of its own, so no change published after that result is lost. The function
// must be called exactly once: until it returns, the subscription holds its queue.
func (s *Server) subscribeLegacyEvents(ev *LegacyEvents) func(ctx context.Context, sink Sink) error {
	f := &legacyFeed{wake: make(chan struct{}, 1), max: s.cfg.SubscriptionBuffer, ev: ev}
	cancel := s.hub.Subscribe(f.push)
	return func(ctx context.Context, sink Sink) error {
		defer cancel()
		return s.serveLegacyFeed(ctx, f, sink)
	}
}

// serveLegacyFeed writes f's queued changes to sink until ctx ends or a write fails.
func (s *Server) serveLegacyFeed(ctx context.Context, f *legacyFeed, sink Sink) error {
	ev := f.ev
	var msg []byte
	var spare []string
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-f.wake:
		}
		lists, uris, dropped := f.take(spare)
		if dropped > 0 {
			s.cfg.Logger.Warn("fastmcp: notifications/resources/updated dropped: the connection's queue is full",
				"dropped", dropped, "limit", f.max)
		}
		for k := range numListKinds {
			if lists&(1<<k) == 0 {
				continue
			}
			msg = decode.AppendNotification(msg[:0], listChangedMethod[k], nil)
			if err := sink.Notify(ctx, msg); err != nil {
				return cmp.Or(ctx.Err(), err)
			}
		}
		for _, uri := range uris {
			if !ev.subscribed(uri) {
				continue // unsubscribed since it was queued
			}
			msg = append(msg[:0], `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":`...)
			msg = decode.AppendString(msg, uri, false)
			msg = append(msg, `}}`...)
			if err := sink.Notify(ctx, msg); err != nil {
				return cmp.Or(ctx.Err(), err)
			}
		}
		clear(uris)
		spare = uris[:0]
	}
}

// legacyFeed is what one connection has yet to be told: the list kinds changed and the
// subscribed URIs updated since its writer last took them.
type legacyFeed struct {
	wake chan struct{} // capacity 1: something was queued
	max  int           // bound of uris
	ev   *LegacyEvents

	mu      sync.Mutex
	lists   uint8    // bit k: list kind k changed
	uris    []string // updated, each at most once
	dropped int      // updates refused since the last take
}

// push records e for the writer; it is the hub's callback and never blocks.
func (f *legacyFeed) push(e Event) {
	k := listKind(e.Kind)
	if k < 0 && (e.Kind != ResourceUpdated || !f.ev.subscribed(e.URI)) {
		return
	}
	f.mu.Lock()
	switch {
	case k >= 0:
		f.lists |= 1 << k
	case slices.Contains(f.uris, e.URI):
	case len(f.uris) >= f.max:
		f.dropped++
	default:
		f.uris = append(f.uris, e.URI)
	}
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// take returns what was queued and empties the queue, which continues in spare.
func (f *legacyFeed) take(spare []string) (lists uint8, uris []string, dropped int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	lists, uris, dropped = f.lists, f.uris, f.dropped
	f.lists, f.uris, f.dropped = 0, spare, 0
	return lists, uris, dropped
}
