package tasks

import (
	"context"
	"errors"
	"sync/atomic"
	"time"
)

// leaseKeeper renews a run's lease every third of LeaseDuration from its claim until its
// outcome is stored, so that a store refusing the outcome for a while does not hand the
// task to another worker.
type leaseKeeper struct {
	lost chan struct{} // closed once the store reports the lease lost
	// until is when the lease runs out by this process's clock (Unix nanoseconds): the
	// time before the claim or the last renewal that succeeded, plus LeaseDuration, which
	// is no later than the store's own reckoning.
	until  atomic.Int64
	cancel context.CancelFunc
	done   chan struct{}
}

// keepLease starts renewing the lease of generation gen on task id, asked for at claimed.
// It interrupts the run when the lease is lost, or when a tasks/cancel served by another
// process requested its cancellation; renewal failures are logged and tried again at the
// next tick.
func (rn *runner) keepLease(id string, gen int64, claimed time.Time, interrupt context.CancelCauseFunc) *leaseKeeper {
	ctx, cancel := context.WithCancel(rn.ctx)
	k := &leaseKeeper{lost: make(chan struct{}), cancel: cancel, done: make(chan struct{})}
	lease := rn.x.opts.LeaseDuration
	k.until.Store(claimed.Add(lease).UnixNano())
	rn.wg.Add(1)
	go func() {
		defer rn.wg.Done()
		defer close(k.done)
		tick := time.NewTicker(lease / 3)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			sent := time.Now()
			cancelRequested, err := rn.x.store.Renew(ctx, id, gen, lease)
			if err == nil {
				k.until.Store(sent.Add(lease).UnixNano())
			}
			switch {
			case errors.Is(err, ErrLeaseLost), errors.Is(err, ErrNotFound):
				close(k.lost)
				interrupt(errCauseLeaseLost)
				return
			case err != nil:
				if ctx.Err() == nil {
					rn.x.opts.Logger.Error("tasks: cannot renew a lease", "task", id, "err", err)
				}
			case cancelRequested:
				interrupt(errCauseCancelled)
			}
		}
	}()
	return k
}

// left is how long the lease lasts unless renewed, by this process's clock.
func (k *leaseKeeper) left() time.Duration {
	return time.Until(time.Unix(0, k.until.Load()))
}

// stop ends the renewals and waits for them.
func (k *leaseKeeper) stop() {
	k.cancel()
	<-k.done
}
