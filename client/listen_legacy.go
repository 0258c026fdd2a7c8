package client

import (
	"cmp"
	"context"
	"errors"
	"sync"

	"github.com/fastmcp-go/fastmcp/decode"
)

// ErrNoEventStream: Listen on an initialize-era HTTP connection whose server offers no
// event stream for what it sends outside a request (its GET answers 405, as a stateless
// server's does). Such a server has no way to send list_changed, resources/updated or log
// messages outside a call, so a subscription there would never deliver anything.
var ErrNoEventStream = errors.New("client: the server offers no event stream for notifications outside a request (its GET is refused)")

// legacyEvents routes the notifications an initialize-era server sends unasked to the
// subscriptions that asked for them, and keeps the resources/subscribe of their URIs.
type legacyEvents struct {
	mu   sync.Mutex
	subs map[*Subscription]struct{}
	// uris counts, per URI, the open subscriptions that listed it (resources/subscribe sent
	// at the first, resources/unsubscribe at the last one's end).
	uris map[string]int
	// ended is set once the connection ended every subscription: later Listens fail with it.
	ended error
	// stream is the HTTP GET stream, nil when none runs (stdio has none).
	stream *legacyStream
	// watching is set once a goroutine watches the stdio connection's end.
	watching bool

	// subMu orders the resources/subscribe and unsubscribe requests with the counts in uris.
	subMu sync.Mutex
}

func (e *legacyEvents) init() {
	e.subs = map[*Subscription]struct{}{}
	e.uris = map[string]int{}
}

// notified handles a notification the server sent, on whatever stream carried it: log
// messages go to Config.OnLog; on an initialize-era connection the unsolicited kinds also go
// to the subscriptions whose filter asks for them.
func (c *Client) notified(method string, params []byte) {
	if method == "notifications/message" {
		c.logs.push(params)
	}
	if !c.modern {
		c.events.route(c, method, params)
	}
}

// unsolicited receives, on the stdio reader, a notification no pending call owns.
func (c *Client) unsolicited(msg []byte) ([]byte, error) {
	m := msgPool.Get().(*decode.Message)
	defer msgPool.Put(m)
	if c.dec.Decode(m, msg) != nil || m.Kind() != decode.KindNotification {
		return nil, nil
	}
	c.notified(string(m.Method().Text()), m.Params().Raw())
	return nil, nil
}

// wants reports whether filter f asks for the notification method with params.
func wants(f *ListenFilter, method string, params []byte) bool {
	switch method {
	case "notifications/tools/list_changed":
		return f.ToolsListChanged
	case "notifications/prompts/list_changed":
		return f.PromptsListChanged
	case "notifications/resources/list_changed":
		return f.ResourcesListChanged
	case "notifications/message":
		return f.LogMessages
	case "notifications/resources/updated":
		uri := text(params, "uri")
		for _, u := range f.ResourceSubscriptions {
			if u == uri {
				return true
			}
		}
	}
	return false
}

// route delivers one notification to every subscription that asked for it. It never blocks:
// a full subscription drops it and counts it, as a modern one does.
func (e *legacyEvents) route(c *Client, method string, params []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var owned []byte
	for s := range e.subs {
		if !wants(&s.Acknowledged, method, params) {
			continue
		}
		if owned == nil && len(params) > 0 {
			owned = append([]byte{}, params...)
		}
		s.offer(c, Notification{Method: method, Params: owned})
	}
}

// offer queues n for the reader, or drops and counts it when ListenBuffer are waiting.
func (s *Subscription) offer(c *Client, n Notification) {
	select {
	case s.c <- n:
	default:
		s.dropped.Add(1)
		c.cfg.Logger.Warn("client: listen buffer full, dropping a notification", "method", n.Method)
	}
}

// endAll ends every open subscription with end and err (the connection or its stream
// ended); with final set, later Listens fail with err too.
func (e *legacyEvents) endAll(end End, err error, final bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if final && e.ended == nil {
		e.ended = err
	}
	for s := range e.subs {
		s.endRemotely(end, err)
	}
}

// closeAll ends every subscription because the Client closed.
func (e *legacyEvents) closeAll(err error) { e.endAll(EndRemote, err, true) }

// endRemotely records how the connection ended s, once, and wakes its goroutine. Called with
// the events' lock held.
func (s *Subscription) endRemotely(end End, err error) {
	if s.remoteEnd != EndNone {
		return
	}
	s.remoteEnd, s.remoteErr = end, err
	close(s.remote)
}

// capable reports whether the initialize result's capabilities have path set (an object, or
// true), e.g. capable("tools", "listChanged").
func (c *Client) capable(path ...string) bool {
	c.disc.mu.Lock()
	d := c.disc.res
	c.disc.mu.Unlock()
	if d == nil {
		return false
	}
	v := decode.Lookup(d.Raw, "capabilities")
	for _, k := range path {
		v = decode.Lookup(v.Raw(), k)
	}
	return v.Type() == decode.TypeObject || string(v.Raw()) == "true"
}

// listenLegacy opens a subscription on an initialize-era connection: the filter's kinds the
// server's capabilities announce, and its URIs subscribed with resources/subscribe when the
// server declares resources.subscribe.
func (c *Client) listenLegacy(ctx context.Context, f ListenFilter) (*Subscription, error) {
	ls, err := c.events.channel(ctx, c)
	if err != nil {
		return nil, err
	}
	ack := ListenFilter{
		ToolsListChanged:     f.ToolsListChanged && c.capable("tools", "listChanged"),
		PromptsListChanged:   f.PromptsListChanged && c.capable("prompts", "listChanged"),
		ResourcesListChanged: f.ResourcesListChanged && c.capable("resources", "listChanged"),
		LogMessages:          f.LogMessages && c.capable("logging"),
	}
	lctx, cancel := context.WithCancel(ctx)
	ch := make(chan Notification, c.cfg.ListenBuffer)
	s := &Subscription{C: ch, c: ch, cancel: cancel, done: make(chan struct{}), remote: make(chan struct{})}

	c.events.subMu.Lock()
	if len(f.ResourceSubscriptions) > 0 && c.capable("resources", "subscribe") {
		uris, err := c.events.subscribe(ctx, c, f.ResourceSubscriptions)
		if err != nil {
			c.events.subMu.Unlock()
			cancel()
			return nil, err
		}
		ack.ResourceSubscriptions = uris
	}
	s.Acknowledged = ack
	c.events.mu.Lock()
	err = c.events.ended
	if err == nil && ls != nil && ls.dead {
		err = cmp.Or(ls.deadErr, errors.New("client: the legacy event stream ended"))
	}
	if err != nil {
		c.events.mu.Unlock()
		c.events.release(c, ack.ResourceSubscriptions, false)
		c.events.subMu.Unlock()
		cancel()
		return nil, err
	}
	c.events.subs[s] = struct{}{}
	c.events.mu.Unlock()
	c.events.subMu.Unlock()

	go func() {
		defer close(s.done)
		end, err := EndLocal, error(nil)
		select {
		case <-lctx.Done():
		case <-s.remote:
		}
		c.events.subMu.Lock()
		c.events.mu.Lock()
		delete(c.events.subs, s)
		if s.remoteEnd != EndNone && !s.local.Load() {
			end, err = s.remoteEnd, s.remoteErr
		}
		c.events.mu.Unlock()
		close(ch) // no route sends to s any more
		c.events.release(c, ack.ResourceSubscriptions, true)
		c.events.subMu.Unlock()
		s.mu.Lock()
		s.end, s.err = end, err
		s.mu.Unlock()
	}()
	return s, nil
}

// subscribe sends resources/subscribe for each of uris no open subscription holds yet and
// counts them; it returns the URIs the server accepted (one it answers with an error is left
// out, with a logged warning). A transport failure undoes what it did and is the error.
// Called with subMu held.
func (e *legacyEvents) subscribe(ctx context.Context, c *Client, uris []string) ([]string, error) {
	var ok []string
	for _, u := range uris {
		e.mu.Lock()
		n := e.uris[u]
		e.mu.Unlock()
		if n == 0 {
			members := decode.AppendString([]byte(`"uri":`), u, false)
			if _, err := c.request(ctx, "resources/subscribe", members, nil, nil); err != nil {
				var re *Error
				if !errors.As(err, &re) {
					e.release(c, ok, true)
					return nil, &opError{"resources/subscribe " + u, err}
				}
				c.cfg.Logger.Warn("client: the server refused a resource subscription", "uri", u, "err", err)
				continue
			}
		}
		e.mu.Lock()
		e.uris[u]++
		e.mu.Unlock()
		ok = append(ok, u)
	}
	return ok, nil
}

// release uncounts uris and, when send is set and the connection is alive (a session whose
// GET stream ended still is), sends resources/unsubscribe for each no subscription holds
// any more. Called with subMu held.
func (e *legacyEvents) release(c *Client, uris []string, send bool) {
	for _, u := range uris {
		e.mu.Lock()
		e.uris[u]--
		last := e.uris[u] <= 0
		if last {
			delete(e.uris, u)
		}
		alive := e.ended == nil && !c.closed.Load()
		e.mu.Unlock()
		if last && send && alive {
			// Best effort, bounded by RequestTimeout: the subscription is over either way.
			members := decode.AppendString([]byte(`"uri":`), u, false)
			if _, err := c.request(context.Background(), "resources/unsubscribe", members, nil, nil); err != nil {
				c.cfg.Logger.Warn("client: resources/unsubscribe failed", "uri", u, "err", err)
			}
		}
	}
}
