package pool

import (
	"context"
	"time"
)

// where a job is. Guarded by the Executor's mutex.
const (
	nowhere   uint8 = iota // not admitted, or finished
	inQueue                // in Executor.queue
	inRunning              // in Executor.running: handed to a worker
)

// job is the executor's record of one admitted job. Records are pooled:
// besides its context (see jobCtx) a job allocates nothing.
//
// A record may be reused while a timer or owner callback of its previous
// use is still in flight. The callbacks therefore check, under the
// Executor's mutex, that the record is admitted and undecided before they
// read anything else, and expire also checks that the deadline has passed.
type job struct {
	e *Executor

	// Set by Submit before the job is admitted; cleared by recycle.
	task Task
	key  Key
	ctx  *jobCtx

	// Guarded by e.mu.
	where      uint8
	decided    bool // the outcome is known; nothing but recycling is left
	prev, next *job // links in e.queue or e.running

	// Owned by whoever holds the job outside the lock (Submit, then the
	// worker or the goroutine that removed it from the queue).
	timer     *time.Timer // created on first use, reset for each use
	ownerStop func() bool // stops the watch on the submitter's context
	expireFn  func()      // j.expire, bound once
	ownerFn   func()      // j.ownerDone, bound once
}

func newJob(e *Executor) *job {
	j := &job{e: e, decided: true}
	j.expireFn = j.expire
	j.ownerFn = j.ownerDone
	return j
}

// arm starts the deadline timer. The deadline was computed at admission,
// before the timer starts, so the timer never fires early.
func (j *job) arm(timeout time.Duration) {
	if timeout <= 0 {
		return
	}
	if j.timer == nil {
		j.timer = time.AfterFunc(timeout, j.expireFn)
	} else {
		j.timer.Reset(timeout)
	}
}

// due reports whether the job's deadline has passed. e.mu must be held and
// the job admitted.
func (j *job) due() bool {
	d := j.ctx.deadline
	return !d.IsZero() && !time.Now().Before(d)
}

// watch arranges for ownerDone to run when the submitter's context ends,
// so that a queued job does not hold its place. e.mu must be held.
func (j *job) watch() {
	if j.ctx.parent.Done() != nil {
		j.ownerStop = context.AfterFunc(j.ctx.parent, j.ownerFn)
	}
}

// unwatch undoes watch.
func (j *job) unwatch() {
	if j.ownerStop != nil {
		j.ownerStop()
		j.ownerStop = nil
	}
}

// expire runs on the deadline timer.
func (j *job) expire() {
	e := j.e
	e.mu.Lock()
	if j.where == nowhere || j.decided || !j.due() {
		e.mu.Unlock()
		return
	}
	v := e.detachLocked(j, TimedOut)
	e.mu.Unlock()
	e.settle(j, v, Result{Outcome: TimedOut, Err: ErrTimeout}, ctxExpired)
}

// ownerDone runs when the submitter's context of a queued job ends: the
// job is dropped without delivery.
func (j *job) ownerDone() {
	e := j.e
	e.mu.Lock()
	if j.where != inQueue || j.decided || j.ctx.parent.Err() == nil {
		e.mu.Unlock()
		return
	}
	v := e.detachLocked(j, Cancelled)
	e.mu.Unlock()
	e.settle(j, v, Result{Outcome: Cancelled}, ctxCancelled) // orphan: not delivered
}
