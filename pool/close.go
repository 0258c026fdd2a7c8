package pool

import "context"

// Close stops admitting jobs and slots, ends every queued job with outcome
// [Cancelled] and [ErrClosed], waits for the running jobs and every pending
// Done and [Releaser] Release call to return, then releases the worker goroutines and waits for
// them to exit. Close returns nil once everything has stopped; later calls
// return nil at once.
//
// If ctx ends first, Close cancels the running jobs' contexts (cause
// [ErrClosed]), delivers [Cancelled] for them, releases the workers without
// waiting and returns ctx's error. A Run that ignores its context keeps its
// goroutine until it returns; a later Close waits for it again.
func (e *Executor) Close(ctx context.Context) error {
	e.mu.Lock()
	var dropped []settlement
	if !e.closed {
		e.closed = true
		e.slots.close()
		for e.queue.head != nil {
			j := e.queue.head
			dropped = append(dropped, settlement{j, e.detachLocked(j, Cancelled)})
		}
		e.checkIdleLocked()
	}
	e.mu.Unlock()
	for _, s := range dropped {
		e.settle(s.j, s.v, Result{Outcome: Cancelled, Err: ErrClosed}, ctxCancelled)
	}

	select {
	case <-e.idle:
		return e.release(ctx)
	default:
	}
	select {
	case <-e.idle:
		return e.release(ctx)
	case <-ctx.Done():
		e.cancelRunning()
		e.releaseOnce.Do(func() {
			e.stopTimer()
			e.workers.Release()
		})
		return ctx.Err()
	}
}

type settlement struct {
	j *job
	v verdict
}

// release stops the timer and the workers once, and waits for the worker
// goroutines.
func (e *Executor) release(ctx context.Context) error {
	var err error
	e.releaseOnce.Do(func() {
		e.stopTimer()
		err = e.workers.ReleaseContext(ctx)
	})
	return err
}

func (e *Executor) stopTimer() {
	e.mu.Lock()
	if e.timer != nil {
		e.timer.Stop()
	}
	e.mu.Unlock()
}

// cancelRunning ends every undecided running job with [ErrClosed].
func (e *Executor) cancelRunning() {
	e.mu.Lock()
	var cancelled []settlement
	for _, j := range e.recs[1:] { // Close rarely gives up: no list of running jobs is kept for it
		if j.where == inRunning && !j.decided {
			cancelled = append(cancelled, settlement{j, e.detachLocked(j, Cancelled)})
		}
	}
	e.mu.Unlock()
	for _, s := range cancelled {
		e.settle(s.j, s.v, Result{Outcome: Cancelled, Err: ErrClosed}, ctxCancelled)
	}
}
