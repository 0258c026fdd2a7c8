package pool

import "context"

// where a job is. Guarded by the Executor's mutex.
const (
	nowhere   uint8 = iota // not admitted, or finished
	inQueue                // in Executor.queue
	inRunning              // counted in Executor.running: handed to a worker
)

// job is the executor's record of one admitted job. Records are kept on a
// free list under the Executor's mutex and reused: besides its context (see
// jobCtx) a job allocates nothing. There are as many records as were ever in
// use at once, and they live as long as the Executor, in Executor.recs. So
// the free list and the key table link them by id rather than by pointer:
// storing an int needs no write barrier, which a pointer store does whenever
// the garbage collector is marking.
//
// A record may be reused while an owner callback (ownerDone) of its previous
// use is still in flight. The callback therefore checks, under the
// Executor's mutex, that the record is queued, undecided and that its own
// submitter's context has ended before it acts.
type job struct {
	e  *Executor
	id int // index in e.recs, from 1

	// Written under e.mu by Submit and recycleLocked; read without it by
	// whoever holds the job (its worker, or the goroutine settling it).
	task    Task
	key     Key
	keyHash uint64 // e.keys.hashKey(key), if key is not zero
	ctx     *jobCtx

	// Guarded by e.mu.
	where   uint8
	decided bool // the outcome is known; nothing but retiring is left
	// A running job decided by another goroutine (detachLocked) has two
	// parties finishing with it: that goroutine, delivering the outcome in
	// settle, and the worker, whose Run has yet to return. The last of the
	// two recycles the record and releases the task (finish or settle):
	// delivering is set until settle has delivered, and runOver once the
	// worker is done while it is.
	delivering bool
	runOver    bool
	prev, next *job // links in e.queue
	keyNext    int  // id of the next job in e.keys' chain, 0 at the end
	heapIndex  int  // position in e.deadlines, -1 outside
	fresh      bool // in e.fresh, linked by the ids freshPrev and freshNext
	freshPrev  int
	freshNext  int

	// Owned by whoever holds the job outside the lock (Submit, then the
	// worker or the goroutine that removed it from the queue).
	ownerStop func() bool // stops the watch on the submitter's context
	ownerFn   func()      // j.ownerDone, bound once
}

func newJob(e *Executor, id int) *job {
	j := &job{e: e, id: id, decided: true, heapIndex: -1}
	j.ownerFn = j.ownerDone
	return j
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
