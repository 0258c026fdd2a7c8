package pool

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// jobCtx is the context.Context a job runs with. It is the one allocation of
// a job, and it is never reused, so a context retained after Run returns is
// safe (it reads as cancelled).
//
// It allocates nothing more until someone needs a channel or a cause: Done,
// or a cancellation by the executor, creates a standard cancelCtx child of
// the submitter's context (cc). From then on Done and Value go through cc, so
// context.Cause finds the cause, and contexts derived from the job register
// with cc instead of starting a goroutine.
type jobCtx struct {
	parent   context.Context
	epoch    *time.Time    // the Executor's epoch
	deadline time.Duration // offset from *epoch; zero: no deadline of its own

	state atomic.Uint32 // ctxLive, ctxCancelled or ctxExpired; set once
	ready atomic.Bool   // cc and cancel are set; set once, under mu

	mu     sync.Mutex
	cc     context.Context
	cancel context.CancelCauseFunc
}

const (
	ctxLive uint32 = iota
	ctxCancelled
	ctxExpired
)

func (c *jobCtx) Deadline() (time.Time, bool) {
	pd, ok := c.parent.Deadline()
	if c.deadline == 0 {
		return pd, ok
	}
	// The monotonic reading is exact; the wall clock reading is the epoch's
	// plus the offset, which differs from "now plus the time left" only if
	// the wall clock was set since the Executor started.
	d := c.epoch.Add(c.deadline)
	if ok && pd.Before(d) {
		return pd, true
	}
	return d, true
}

func (c *jobCtx) Done() <-chan struct{} {
	return c.materialize().Done()
}

func (c *jobCtx) Err() error {
	if c.ready.Load() {
		err := c.cc.Err()
		if err != nil && c.state.Load() == ctxExpired {
			return context.DeadlineExceeded
		}
		return err
	}
	switch c.state.Load() {
	case ctxCancelled:
		return context.Canceled
	case ctxExpired:
		return context.DeadlineExceeded
	}
	return c.parent.Err()
}

func (c *jobCtx) Value(key any) any {
	if c.ready.Load() {
		return c.cc.Value(key)
	}
	return c.parent.Value(key)
}

func (c *jobCtx) String() string { return "pool.job" }

// materialize returns cc, creating it on first use.
func (c *jobCtx) materialize() context.Context {
	if c.ready.Load() {
		return c.cc
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.materializeLocked()
	return c.cc
}

// materializeLocked creates cc unless it exists. If c has ended, it ended
// without a cause (end materializes otherwise), so cc ends with
// context.Canceled. c.mu must be held.
func (c *jobCtx) materializeLocked() {
	if c.ready.Load() {
		return
	}
	c.cc, c.cancel = context.WithCancelCause(c.parent)
	// Publish, then look at the state: an end without the lock sets the
	// state, then looks at ready, so one of the two sees the other and
	// cancels cc (twice is harmless).
	c.ready.Store(true)
	if c.state.Load() != ctxLive {
		c.cancel(nil)
	}
}

// end cancels c with the given state and cause, unless it or its parent has
// already ended. With withCause it makes sure context.Cause reports cause
// (which costs cc, and c.mu); otherwise Cause reports the plain error, and
// end takes no lock: this is the end of every job whose Run returned.
func (c *jobCtx) end(state uint32, cause error, withCause bool) {
	if !withCause {
		if c.parent.Err() == nil && c.state.CompareAndSwap(ctxLive, state) && c.ready.Load() {
			c.cancel(nil)
		}
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state.Load() != ctxLive || c.parent.Err() != nil {
		return
	}
	c.materializeLocked()
	// The state is set before cancel, so whoever sees cc done sees the
	// state; an end without the lock may set it first, and then cancels cc.
	if c.state.CompareAndSwap(ctxLive, state) {
		c.cancel(cause)
	}
}
