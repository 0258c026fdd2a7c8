package client

import (
	"context"
	"errors"
	"sync/atomic"
)

// errSessionRenewed ends the subscriptions of a legacy session the server forgot: the client
// started a new one, whose GET stream later subscriptions use.
var errSessionRenewed = errors.New("client: the server ended the session (HTTP 404 for its id); a new session was started")

// sessionState tracks an initialize-era HTTP session across the server forgetting it.
type sessionState struct {
	// gen counts the sessions started; a call that saw a 404 renews only the session it
	// was sent in. It changes with mu held.
	gen atomic.Int64
	mu  chanMutex
}

// chanMutex is a mutex whose Lock gives up when a context ends.
type chanMutex chan struct{}

func (m chanMutex) lock(ctx context.Context) error {
	select {
	case m <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (m chanMutex) unlock() { <-m }

// sessionTransport is the HTTP transport of a sessionful legacy connection (nil otherwise).
func (c *Client) sessionTransport() *httpTransport {
	if c.modern {
		return nil
	}
	h, _ := c.t.(*httpTransport)
	if h == nil || !h.sessionful() {
		return nil
	}
	return h
}

// sessionGen is the generation of the session a request is about to be sent in, and
// whether there is one.
func (c *Client) sessionGen() (int64, bool) {
	if c.sessionTransport() == nil {
		return 0, false
	}
	return c.session.gen.Load(), true
}

// sessionLost reports whether err is the server's answer for a session it does not know:
// HTTP 404 to a request that carried the session's id (2025-11-25 §Session Management).
func sessionLost(err error) bool { return httpStatus(err) == 404 }

// renewSession starts a new session with initialize, without the old id, as the spec
// requires after a 404 for it, unless another call did so since generation gen. The old
// session's GET stream is stopped and its subscriptions end (EndRemote, errSessionRenewed);
// the new session gets a GET stream of its own.
func (c *Client) renewSession(ctx context.Context, gen int64) error {
	if err := c.session.mu.lock(ctx); err != nil {
		return err
	}
	defer c.session.mu.unlock()
	if c.session.gen.Load() != gen {
		return nil // renewed already
	}
	if c.closed.Load() {
		return ErrClosed
	}
	h := c.sessionTransport()
	if h == nil {
		return nil
	}
	c.events.endAll(EndRemote, errSessionRenewed, false)
	c.events.stopStream()
	h.forgetSession()
	if err := c.handshake(ctx, c.currentVersion(), c.cfg.Era == EraLegacy20250618); err != nil {
		return &opError{"starting a new session", err}
	}
	c.session.gen.Add(1)
	return nil
}
