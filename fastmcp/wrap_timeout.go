package fastmcp

import (
	"context"
	"errors"
	"runtime/debug"
	"sync"
	"time"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/internal/defaults"
)

// TimeoutOptions configures [Timeout].
type TimeoutOptions struct {
	// Timeout bounds one call of the component, from the wrapper to the handler's return. If
	// zero, [DefaultComponentTimeout] is used. Negative values are invalid.
	Timeout time.Duration
}

// Timeout returns a wrapper that bounds each call of a component. The handler (and the
// wrappers declared after this one) run on their own goroutine with a context that ends at
// the deadline. When the deadline passes first, the call is refused at once with "Component
// timed out", without waiting for a handler that ignores its context: that handler keeps
// running until it returns, and what it returns then is discarded. Its goroutine ends when it
// returns. Until then it holds no request resources: its Request and arguments are private
// copies, and its progress and log notifications are dropped once the call is answered.
//
// A panic in the handler is recovered on that goroutine, logged with its stack, and refuses
// the call with "Component callback failed".
//
// Wrappers declared after Timeout count the abandoned handler until it really returns (a
// [Concurrency] permit is held until then); wrappers declared before it stop counting at the
// refusal.
func Timeout(o TimeoutOptions) Wrapper {
	d := o.Timeout
	if err := defaults.Resolve(&d, DefaultComponentTimeout, "Timeout", errInvalidTimeout); err != nil {
		return Wrapper{name: "Timeout", err: err}
	}
	return Wrapper{name: "Timeout", detach: true, wrap: func(ctx context.Context, s *Server, c Component, next func(context.Context) error) error {
		return runWithTimeout(ctx, s, c, d, next)
	}}
}

func runWithTimeout(parent context.Context, s *Server, c Component, d time.Duration, next func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(parent, d)
	defer cancel()
	done := make(chan error, 1) // buffered: a handler that outlives the wait never blocks on it
	go func() {
		err, returned := error(errComponentCallbackFailed), false
		defer func() {
			if p := recover(); p != nil || !returned {
				s.cfg.Logger.Error("fastmcp: component callback failed", "kind", c.Kind, "component", c.Name,
					"uri", c.URI, "panic", p, "stack", string(debug.Stack()))
			}
			done <- err
		}()
		err = next(ctx)
		returned = true
	}()
	settle := func(err error) error {
		// A handler that gave up because of this deadline timed out, whatever error it chose.
		if err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil && parent.Err() == nil {
			return errComponentTimedOut
		}
		return err
	}
	select {
	case err := <-done:
		return settle(err)
	case <-ctx.Done():
	}
	select {
	case err := <-done: // it returned at the deadline: keep what it returned
		return settle(err)
	default:
	}
	if err := parent.Err(); err != nil {
		return err // the request itself ended (cancelled, or the transport's deadline)
	}
	return errComponentTimedOut
}

// detach returns a copy of r for a handler that may outlive the request: it owns its message
// bytes, and its notifications reach r's sink only until release returns. Call release once
// the wrappers have returned. Fields added to Request must be copied here.
func (r *Request) detach() (d *Request, release func()) {
	m := new(decode.Message)
	r.msg.CopyTo(m)
	d = &Request{
		server:   r.server,
		msg:      m,
		cat:      r.cat,
		method:   r.method,
		logLevel: r.logLevel,
		state:    r.state, // opened into a buffer of its own
		dialect:  r.dialect,
		client:   r.client,
		answers:  r.answers, // the bridge's own bytes
		tool:     r.tool,
	}
	if r.sink == nil {
		return d, func() {}
	}
	g := newGatedSink(r.sink)
	d.sink = g
	return d, g.close
}

// arguments returns the message's arguments object (a detached request's own copy), or
// absent when the message had none.
func (r *Request) arguments(absent []byte) []byte {
	if a := r.msg.Arguments(); a.Present() {
		return a.Raw()
	}
	return absent
}

// gatedSink forwards notifications to a request's sink until close, which cancels those in
// flight and waits for them.
type gatedSink struct {
	inner  Sink
	ctx    context.Context // ends at close
	cancel context.CancelFunc

	mu     sync.Mutex
	closed bool
	active sync.WaitGroup
}

func newGatedSink(inner Sink) *gatedSink {
	g := &gatedSink{inner: inner}
	g.ctx, g.cancel = context.WithCancel(context.Background())
	return g
}

func (g *gatedSink) Notify(ctx context.Context, msg []byte) error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return context.Canceled
	}
	g.active.Add(1)
	g.mu.Unlock()
	defer g.active.Done()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(g.ctx, cancel)
	defer stop()
	return g.inner.Notify(ctx, msg)
}

func (g *gatedSink) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	g.cancel()
	g.active.Wait()
}
