package pool

import (
	"context"
	"sync/atomic"
	"time"
)

// jobCtx is the context.Context a job runs with. It is the one allocation of
// a job (made ctxBlockLen at a time, see newCtxLocked), and it is never
// reused, so a context retained after Run returns is safe (it reads as
// cancelled). It is kept to 48 bytes: every job pays for it, and the bytes
// drive the garbage collector.
//
// It allocates nothing more until someone needs a channel or a cause: Done,
// or a cancellation by the executor, creates a standard cancelCtx child of
// the submitter's context (cc). From then on Done and Value go through cc, so
// context.Cause finds the cause, and contexts derived from the job register
// with cc instead of starting a goroutine.
//
// It takes no lock. The state is set once, by compare-and-swap, and cc is
// published once the same way; see end and materialize for how they meet.
type jobCtx struct {
	parent   context.Context
	epoch    *time.Time    // the Executor's epoch
	deadline time.Duration // offset from *epoch; zero: no deadline of its own

	state atomic.Uint32 // ctxLive, or how c ended (| endPlain); set once
	ready atomic.Bool   // cc is set; set once
	cc    atomic.Pointer[canceller]
}

const (
	ctxLive uint32 = iota
	ctxCancelled
	ctxExpired

	// endPlain marks a state set by an end without a cause: whoever created
	// cc cancels it without one. After an end with a cause, that end
	// cancels cc itself, with the cause.
	endPlain uint32 = 4
)

// canceller is cc with its cancel function.
type canceller struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
}

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
	return c.materialize().ctx.Done()
}

func (c *jobCtx) Err() error {
	if c.ready.Load() {
		err := c.cc.Load().ctx.Err()
		if err != nil && c.state.Load()&^endPlain == ctxExpired {
			return context.DeadlineExceeded
		}
		return err
	}
	switch c.state.Load() &^ endPlain {
	case ctxCancelled:
		return context.Canceled
	case ctxExpired:
		return context.DeadlineExceeded
	}
	return c.parent.Err()
}

func (c *jobCtx) Value(key any) any {
	if c.ready.Load() {
		return c.cc.Load().ctx.Value(key)
	}
	return c.parent.Value(key)
}

func (c *jobCtx) String() string { return "pool.job" }

// materialize returns cc, creating it on first use. Two goroutines may
// create one at once; the first to publish wins and the other discards its
// own. If c has ended without a cause, cc ends at once with
// context.Canceled.
func (c *jobCtx) materialize() *canceller {
	if cc := c.cc.Load(); cc != nil {
		return cc
	}
	ctx, cancel := context.WithCancelCause(c.parent)
	cc := &canceller{ctx, cancel}
	if !c.cc.CompareAndSwap(nil, cc) {
		cancel(nil) // detaches it from the parent
		return c.cc.Load()
	}
	// Publish, then look at the state: an end without a cause sets the
	// state, then looks at ready, so one of the two sees the other and
	// cancels cc (twice is harmless).
	c.ready.Store(true)
	if c.state.Load()&endPlain != 0 {
		cancel(nil)
	}
	return cc
}

// end cancels c with the given state and cause, unless it or its parent has
// already ended. With withCause it makes sure context.Cause reports cause
// (which costs cc); otherwise Cause reports the plain error, and end costs
// two atomic operations: this is the end of every job whose Run returned.
func (c *jobCtx) end(state uint32, cause error, withCause bool) {
	if c.state.Load() != ctxLive || c.parent.Err() != nil {
		return
	}
	if !withCause {
		c.endLive(state)
		return
	}
	// cc exists before the state is set, so whoever sees the state sees cc,
	// and whoever sees cc done sees the state.
	cc := c.materialize()
	if c.state.CompareAndSwap(ctxLive, state) {
		cc.cancel(cause)
	}
}

// endLive is end without a cause, for a caller that has just seen c's
// parent live.
func (c *jobCtx) endLive(state uint32) {
	if c.state.CompareAndSwap(ctxLive, state|endPlain) && c.ready.Load() {
		c.cc.Load().cancel(nil)
	}
}
