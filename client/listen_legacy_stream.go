package client

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// legacyStream is the standalone GET stream of an initialize-era HTTP connection: where the
// server sends what it has outside any call (requests for input, list_changed,
// resources/updated, log messages). One runs at a time; Listen starts one when none does.
type legacyStream struct {
	opened  chan struct{} // closed once the server accepted or refused the GET
	openErr error         // its refusal (a 405, for example) or failure
	ended   chan struct{} // closed when the stream is over
	cancel  context.CancelFunc
	// dead is set, with the events' lock held, when the stream ended the subscriptions it
	// carried: no subscription may join it after.
	dead    bool
	deadErr error
}

// startStream opens a GET stream; what it carries goes through the client's onMessage (the
// handlers answer requests by POST; notifications are routed). Called with e.mu held.
func (e *legacyEvents) startStream(c *Client, h *httpTransport) *legacyStream {
	ctx, cancel := context.WithCancel(context.Background())
	ls := &legacyStream{opened: make(chan struct{}), ended: make(chan struct{}), cancel: cancel}
	var once sync.Once
	open := func(err error) { once.Do(func() { ls.openErr = err; close(ls.opened) }) }
	e.stream = ls
	go func() {
		defer close(ls.ended)
		err := h.serverStream(ctx, c.currentVersion(), func() { open(nil) }, func(msg []byte) ([]byte, error) {
			return c.onMessage(ctx, msg, nil)
		})
		open(err)
		if ctx.Err() != nil {
			return // stopped by Close, which ends the subscriptions itself
		}
		end := EndGraceful
		if err != nil {
			c.cfg.Logger.Debug("client: the legacy server stream ended", "err", err)
			end, err = EndRemote, &opError{"the legacy event stream ended", err}
		}
		e.mu.Lock()
		ls.dead, ls.deadErr = true, err
		if e.stream == ls {
			e.stream = nil
		}
		for s := range e.subs {
			s.endRemotely(end, err)
		}
		e.mu.Unlock()
	}()
	return ls
}

// stopStream ends the GET stream, if one runs, and waits for it.
func (e *legacyEvents) stopStream() {
	e.mu.Lock()
	ls := e.stream
	e.stream = nil
	e.mu.Unlock()
	if ls != nil {
		ls.cancel()
		<-ls.ended
	}
}

// channel makes sure the server's unsolicited messages reach the client: over stdio they
// always do (a goroutine then watches for the connection's end); over HTTP a GET stream
// must be open, and one is started when none runs. It returns the stream subscriptions then
// depend on (nil over stdio).
func (e *legacyEvents) channel(ctx context.Context, c *Client) (*legacyStream, error) {
	e.mu.Lock()
	if e.ended != nil {
		err := e.ended
		e.mu.Unlock()
		return nil, err
	}
	switch t := c.t.(type) {
	case *stdioTransport:
		if !e.watching {
			e.watching = true
			go func() {
				<-t.conn.done
				t.conn.mu.Lock()
				err := t.conn.err
				t.conn.mu.Unlock()
				e.endAll(EndRemote, err, true)
			}()
		}
		e.mu.Unlock()
		return nil, nil
	case *httpTransport:
		ls := e.stream
		if ls == nil {
			ls = e.startStream(c, t)
		}
		e.mu.Unlock()
		select {
		case <-ls.opened:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if ls.openErr != nil {
			var he *HTTPError
			if errors.As(ls.openErr, &he) {
				return nil, fmt.Errorf("%w: %w", ErrNoEventStream, ls.openErr)
			}
			return nil, &opError{"opening the legacy event stream", ls.openErr}
		}
		return ls, nil
	}
	e.mu.Unlock()
	return nil, ErrNoEventStream
}
