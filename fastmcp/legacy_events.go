package fastmcp

import (
	"context"
	"sync"
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

// subscribed reports whether uri is in the set.
func (ev *LegacyEvents) subscribed(uri string) bool {
	ev.mu.Lock()
	_, ok := ev.uris[uri]
	ev.mu.Unlock()
	return ok
}

// ServeLegacyEvents writes to sink, until ctx ends, the notifications an initialize-era
// connection gets unasked: notifications/tools/list_changed, prompts/list_changed and
// resources/list_changed when the catalog changes, and notifications/resources/updated for
// the URIs subscribed in ev. It returns ctx's error, or the sink's when a write fails.
func (s *Server) ServeLegacyEvents(ctx context.Context, ev *LegacyEvents, sink Sink) error {
	// TODO(legacy-bridge)
	<-ctx.Done()
	return ctx.Err()
}
