package tasks

import (
	"context"
	"errors"
	"time"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// minCommitRetry is the first wait before a run's outcome is written again after the store
// failed it; each failure doubles it, up to a third of LeaseDuration.
const minCommitRetry = 100 * time.Millisecond

// finish writes how a run ended with a write fenced by the run's lease, then releases the
// lease. A concurrent write (tasks/cancel) wins: a terminal task is left alone, a task whose
// cancellation was requested becomes cancelled.
//
// A write the store fails (full disk, database down) is tried again with backoff while the
// lease holds, lease renewing it meanwhile: the outcome waits in memory, and the work does
// not run again. finish gives up, and the work runs again, once the lease has run out
// (renewals are writes too: a store that takes none for a whole LeaseDuration loses it) or
// the store reports it lost, or when the runner stops first (then it releases the lease, if
// the store takes that write).
func (rn *runner) finish(t *Task, gen int64, change func(*Task) error, lease *leaseKeeper) {
	ctx := context.WithoutCancel(rn.ctx)
	id := t.ID
	c := &commitRetry{rn: rn, id: id, gen: gen, lease: lease, wait: min(minCommitRetry, rn.x.opts.LeaseDuration/3)}
	for conflicts := 0; conflicts < maxCASAttempts; {
		if t == nil { // after a conflict: the stored task, which a concurrent write changed
			fresh, err := rn.x.store.Get(ctx, id)
			switch {
			case errors.Is(err, ErrNotFound):
				return // expired or reaped: nothing to write or release
			case err != nil:
				if !c.after(err) {
					return
				}
				continue
			case fresh.Status.Terminal():
				rn.release(id, gen)
				return
			}
			if fresh.CancelRequested {
				change = cancelled
			}
			t = fresh
		}
		next := *t
		if err := change(&next); err != nil {
			var e *fastmcp.Error
			if !errors.As(err, &e) {
				e = fastmcp.ErrInternal
			}
			next = *t
			_ = failedWith(e)(&next)
		}
		next.UpdatedAt = now()
		err := rn.x.store.Put(ctx, &next, gen)
		switch {
		case err == nil:
			if c.failed {
				rn.x.opts.Logger.Info("tasks: a run's outcome was stored after the store failed it", "task", id)
			}
			publish(rn.x.srv, &next)
			rn.release(id, gen)
			return
		case errors.Is(err, ErrConflict):
			conflicts++
			t = nil
		case errors.Is(err, ErrLeaseLost), errors.Is(err, ErrNotFound):
			if c.failed {
				rn.dropped(id, "lease lost")
			}
			return // another worker owns it now, or it is gone
		default:
			if !c.after(err) {
				return
			}
		}
	}
	rn.x.opts.Logger.Error("tasks: a run's outcome lost to concurrent writes", "task", id)
	rn.release(id, gen)
}

// commitRetry paces the writes of one run's outcome that the store failed.
type commitRetry struct {
	rn     *runner
	id     string
	gen    int64
	lease  *leaseKeeper
	wait   time.Duration
	failed bool
}

// after logs the store's first failure err and waits before the next try (the wait
// doubles, up to a third of LeaseDuration, and ends when the lease runs out by this
// process's clock, for a last try). It returns false, having given up, once the lease
// has run out or the store reported it lost, or when the runner stops first (then it
// releases the lease).
func (c *commitRetry) after(err error) bool {
	rn := c.rn
	if !c.failed {
		c.failed = true
		rn.x.opts.Logger.Error("tasks: cannot store a run's outcome, retrying while the lease is held", "task", c.id, "err", err)
	}
	left := c.lease.left()
	if left <= 0 {
		rn.dropped(c.id, "lease ran out")
		return false
	}
	timer := time.NewTimer(min(c.wait, left)) // a last try as the lease runs out
	defer timer.Stop()
	c.wait = min(2*c.wait, rn.x.opts.LeaseDuration/3)
	select {
	case <-timer.C:
		return true
	case <-c.lease.lost:
		rn.dropped(c.id, "lease lost")
	case <-rn.ctx.Done():
		rn.dropped(c.id, "shutdown")
		rn.release(c.id, c.gen)
	}
	return false
}

// dropped logs an outcome given up on.
func (rn *runner) dropped(id, reason string) {
	rn.x.opts.Logger.Error("tasks: a run's outcome was not stored; the work will run again", "task", id, "reason", reason)
}

func (rn *runner) release(id string, gen int64) {
	if err := rn.x.store.Release(context.WithoutCancel(rn.ctx), id, gen); err != nil && !errors.Is(err, ErrLeaseLost) && !errors.Is(err, ErrNotFound) {
		rn.x.opts.Logger.Error("tasks: cannot release a lease", "task", id, "err", err)
	}
}
