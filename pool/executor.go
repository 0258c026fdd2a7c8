package pool

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/panjf2000/ants/v2"
)

// workerExpiry is how long an idle worker goroutine lives.
const workerExpiry = 10 * time.Second

// Executor runs jobs on a bounded set of worker goroutines with a bounded
// FIFO queue in front, a deadline per job, cancellation by key or by the
// submitter's context, and panic isolation. Create one with [New] and stop it
// with [Executor.Close]. It is safe to call Executor methods from concurrently
// running goroutines.
type Executor struct {
	cfg     settings
	workers *ants.PoolWithFuncGeneric[*job]
	slots   Slots
	epoch   time.Time // deadlines are monotonic offsets from it

	mu         sync.Mutex
	closed     bool
	idleClosed bool
	idle       chan struct{} // closed once closed, nothing runs and nothing settles
	settling   int           // verdicts taken out of the lock by detachLocked
	queue      jobList
	running    int       // jobs in the running set (where == inRunning)
	recs       []*job    // every record, by id; recs[0] is nil (see job.id)
	free       []int     // ids of recycled records
	keys       keyTable  // undecided keyed jobs
	ctxBlock   *ctxBlock // where job contexts come from (see newCtxLocked)
	ctxNext    int       // the next unused context in ctxBlock
	counters   counters
	deadlines  deadlineHeap  // undecided jobs with a deadline (see deadline.go)...
	fresh      freshList     // ...or on this list
	timer      *time.Timer   // runs expire; created on first use
	timerAt    time.Duration // when the timer fires; 0 if it is not armed

	releaseOnce sync.Once
}

// New returns an Executor configured by cfg, or an error wrapping
// [ErrInvalidConfig].
func New(cfg Config) (*Executor, error) {
	s, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	e := &Executor{
		cfg:   s,
		slots: Slots{max: s.maxSlots},
		epoch: time.Now(),
		idle:  make(chan struct{}),
		recs:  []*job{nil},

		ctxNext: ctxBlockLen, // the first job allocates a block
	}
	e.keys = newKeyTable(min(s.maxRunning+s.maxQueue, 1024), &e.recs)
	e.deadlines = make(deadlineHeap, 0, min(s.maxRunning+s.maxQueue, 4096))
	// Blocking mode, not Nonblocking: the executor never asks for more
	// workers than MaxConcurrency, but a worker that just finished its last
	// job returns to ants a moment after the executor counts it free, and
	// Invoke waits for that moment instead of failing.
	e.workers, err = ants.NewPoolWithFuncGeneric(s.maxRunning, e.work,
		ants.WithExpiryDuration(workerExpiry), ants.WithLogger(antsLogger{s.log}))
	if err != nil {
		return nil, fmt.Errorf("pool: starting workers: %w", err)
	}
	return e, nil
}

// Submit admits task under key with the [Config.DefaultTimeout] deadline.
// See [Executor.SubmitTimeout].
func (e *Executor) Submit(ctx context.Context, key Key, task Task) error {
	_, err := e.submit(ctx, key, e.cfg.timeout, task, false)
	return err
}

// SubmitTimeout admits task under key with its own timeout, counted from
// now: zero means [Config.DefaultTimeout], and [NoTimeout] (or any negative
// value) means no deadline.
//
// The job starts at once when a worker is free, or waits in the FIFO queue
// when the queue has room. Otherwise SubmitTimeout returns [ErrOverloaded]
// at once. It returns [ErrDuplicateKey] when a job with the same non-zero key
// is running or queued, [ErrClosed] after Close, and ctx's error when ctx has
// already ended; in all these cases nothing was admitted. After a nil return
// task.Done receives the outcome (see [Task]).
//
// ctx is the submitter's context: the job's context inherits its values and
// ends with it. When ctx ends, a queued job is dropped and a running job's
// context is cancelled, and neither is delivered.
//
// SubmitTimeout panics if task is nil.
func (e *Executor) SubmitTimeout(ctx context.Context, key Key, timeout time.Duration, task Task) error {
	if timeout == 0 {
		timeout = e.cfg.timeout
	}
	_, err := e.submit(ctx, key, timeout, task, false)
	return err
}

// SubmitInline is [Executor.SubmitTimeout], except that a job admitted to run at once (a
// worker is free and nothing is queued) runs on the caller's goroutine before SubmitInline
// returns, reporting inline true. It counts as running, has its deadline and cancellation, and
// its outcome reaches Done as usual; a queued job runs on a worker later, as with Submit. It
// saves the hand-off to a worker for short jobs, at the price of the caller's goroutine: a
// transport that must answer at the deadline whatever the job does uses Submit.
func (e *Executor) SubmitInline(ctx context.Context, key Key, timeout time.Duration, task Task) (inline bool, err error) {
	if timeout == 0 {
		timeout = e.cfg.timeout
	}
	return e.submit(ctx, key, timeout, task, true)
}

func (e *Executor) submit(ctx context.Context, key Key, timeout time.Duration, task Task, inline bool) (bool, error) {
	if task == nil {
		panic("pool: Submit with a nil Task")
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	var h uint64
	if !key.IsZero() {
		h = e.keys.hashKey(key)
	}
	var now, deadline time.Duration
	if timeout > 0 {
		now = time.Since(e.epoch)
		if deadline = now + timeout; deadline < now {
			deadline = 0 // overflow: too far away to matter
		}
	}

	e.mu.Lock()
	j := e.newJobLocked()
	j.task, j.key, j.keyHash, j.ctx = task, key, h, e.newCtxLocked(ctx, deadline)
	if err := e.admitLocked(j, now); err != nil {
		e.unnewCtxLocked(j.ctx)
		e.recycleLocked(j)
		e.mu.Unlock()
		return false, err
	}
	if j.where == inQueue {
		j.watch()
		e.mu.Unlock()
		return false, nil
	}
	e.mu.Unlock()
	if inline {
		if next := e.runOne(j); next != nil {
			e.start(next) // the queue's head goes to a worker: this goroutine is not one
		}
		return true, nil
	}
	e.start(j)
	return false, nil
}

// admitLocked places j in the running set or the queue, and schedules its
// deadline. e.mu must be held.
func (e *Executor) admitLocked(j *job, now time.Duration) error {
	switch {
	case e.closed:
		return ErrClosed
	case !j.key.IsZero() && e.keys.get(j.key, j.keyHash) != nil:
		return ErrDuplicateKey
	case e.running < e.cfg.maxRunning && e.queue.n == 0:
		j.where = inRunning
		e.running++
	case e.queue.n < e.cfg.maxQueue:
		j.where = inQueue
		e.queue.pushBack(j)
	default:
		e.counters.rejected++
		return ErrOverloaded
	}
	j.decided = false
	if !j.key.IsZero() {
		e.keys.add(j)
	}
	if j.ctx.deadline != 0 {
		e.scheduleLocked(j, now)
	}
	e.counters.admitted++
	return nil
}

// start hands j, already in the running set, to a worker.
func (e *Executor) start(j *job) {
	for j != nil {
		if e.workers.Invoke(j) == nil {
			return
		}
		// The workers were released by a Close that gave up waiting.
		j = e.finish(j, Result{Outcome: Cancelled, Err: ErrClosed}, false)
	}
}

// work is the ants worker function: it runs j, then the queued jobs, until
// the queue is empty.
func (e *Executor) work(j *job) {
	for j != nil {
		j = e.runOne(j)
	}
}

// runOne runs j and returns the next job for this worker, or nil.
func (e *Executor) runOne(j *job) (next *job) {
	returned := false
	defer func() {
		if returned {
			return
		}
		v := recover() // nil: Run called runtime.Goexit, which cannot be stopped
		if v == nil {
			e.logPanic("pool: job called runtime.Goexit", j.key, nil)
		} else {
			e.logPanic("pool: job panicked", j.key, v)
		}
		next = e.finish(j, Result{Outcome: Failed, Err: ErrPanicked}, true)
		if v == nil && next != nil {
			go e.start(next) // this goroutine is exiting
			next = nil
		}
	}()
	var err error
	if j.ctx.Err() == nil { // a job cancelled before it started does not run
		err = j.task.Run(j.ctx)
	}
	returned = true
	r := Result{Outcome: Completed}
	if err != nil {
		r = Result{Outcome: Failed, Err: err}
	}
	return e.finish(j, r, false)
}

// finish ends j after its Run returned (or will never run), delivers r
// unless the outcome was already decided, releases the task unless the
// goroutine that decided the outcome is still delivering it, and returns
// the next queued job, now in the running set, for the same worker.
func (e *Executor) finish(j *job, r Result, panicked bool) *job {
	e.mu.Lock()
	first := !j.decided
	var v verdict
	if first {
		v = e.decideLocked(j, r.Outcome)
	}
	if panicked {
		e.counters.panicked++
	}
	jc, t, rel := j.ctx, j.task, j.task // rel: to release here, if a Releaser
	e.running--
	if j.delivering {
		j.where, j.runOver = nowhere, true // settle recycles j and releases its task
		rel = nil
	} else {
		e.recycleLocked(j) // j is not touched again
	}
	next := e.queue.popFront()
	if next != nil {
		next.where = inRunning
		e.running++
	}
	e.checkIdleLocked()
	e.mu.Unlock()

	if next != nil {
		next.unwatch()
	}
	switch {
	case !first: // decided elsewhere, which delivers
		jc.end(ctxCancelled, nil, false)
		t = nil
	case v.orphan: // the context follows its ended parent; nothing is delivered
		t = nil
	default:
		jc.endLive(ctxCancelled) // decideLocked has just seen its parent live
	}
	if rr, ok := rel.(Releaser); ok {
		e.deliverRelease(t, r, rr)
	} else if t != nil {
		e.deliver(t, r)
	}
	return next
}

// verdict is what the goroutine that decided a job's outcome takes out of
// the lock.
type verdict struct {
	task   Task
	ctx    *jobCtx
	orphan bool // the submitter's context has ended: deliver nothing
	queued bool // the job never ran and left the queue: settle recycles it
}

// decideLocked records that j's outcome is o (Cancelled if the submitter's
// context has ended), frees its key, and takes it out of the deadlines and
// the queue. e.mu must be held and j undecided.
func (e *Executor) decideLocked(j *job, o Outcome) verdict {
	j.decided = true
	if !j.key.IsZero() {
		e.keys.remove(j)
	}
	e.unscheduleLocked(j)
	v := verdict{task: j.task, ctx: j.ctx, orphan: j.ctx.parent.Err() != nil}
	if v.orphan {
		o = Cancelled
	}
	e.counters.count(o)
	if j.where == inQueue {
		e.queue.remove(j)
		j.where = nowhere
		v.queued = true
	}
	return v
}

// detachLocked decides j's outcome on behalf of a goroutine other than its
// worker (expire, ownerDone, Cancel, Close), which must call settle after
// releasing e.mu. Close waits for such settlements. e.mu must be held and j
// undecided.
func (e *Executor) detachLocked(j *job, o Outcome) verdict {
	e.settling++
	v := e.decideLocked(j, o)
	j.delivering = !v.queued
	return v
}

// settle carries out a verdict from detachLocked: the job's context ends
// with state and r.Err as its cause, r is delivered, and the task is
// released if it never ran or its worker is done with it. Otherwise the
// worker releases it when Run returns.
func (e *Executor) settle(j *job, v verdict, r Result, state uint32) {
	if v.queued {
		j.unwatch()
	} else {
		v.ctx.end(state, r.Err, true)
	}
	var t Task
	if !v.orphan {
		t = v.task
	}
	var rel Releaser
	if v.queued { // Run will never start, and nobody else holds j
		rel, _ = v.task.(Releaser)
	}
	switch {
	case rel != nil:
		e.deliverRelease(t, r, rel)
	case t != nil:
		e.deliver(t, r)
	}
	e.mu.Lock()
	switch {
	case v.queued:
		e.recycleLocked(j)
	case j.runOver: // Run returned while Done was being delivered
		e.recycleLocked(j)
		e.mu.Unlock()
		if rel, ok := v.task.(Releaser); ok {
			e.deliverRelease(nil, Result{}, rel)
		}
		e.mu.Lock()
	default:
		j.delivering = false // the worker retires j
	}
	e.settling--
	e.checkIdleLocked()
	e.mu.Unlock()
}

// newJobLocked returns a recycled record or a new one. e.mu must be held.
func (e *Executor) newJobLocked() *job {
	if n := len(e.free); n > 0 {
		id := e.free[n-1]
		e.free = e.free[:n-1]
		return e.recs[id]
	}
	j := newJob(e, len(e.recs))
	e.recs = append(e.recs, j)
	return j
}

// recycleLocked keeps a finished record, which is in no list, for reuse.
// Its owner watch must be stopped. e.mu must be held.
func (e *Executor) recycleLocked(j *job) {
	j.where, j.decided, j.delivering, j.runOver = nowhere, true, false, false
	j.task, j.ctx, j.key = nil, nil, Key{} // keep nothing of the job alive
	e.free = append(e.free, j.id)
}

// checkIdleLocked closes e.idle once the executor is closed and idle.
// e.mu must be held.
func (e *Executor) checkIdleLocked() {
	if e.closed && e.running == 0 && e.settling == 0 && !e.idleClosed {
		e.idleClosed = true
		close(e.idle)
	}
}

// deliver calls t.Done(r), logging a panic instead of propagating it.
func (e *Executor) deliver(t Task, r Result) {
	defer func() {
		if v := recover(); v != nil {
			e.logPanic("pool: Task.Done panicked", Key{}, v)
		}
	}()
	t.Done(r)
}

// deliverRelease calls t.Done(r) unless t is nil, then rel.Release(),
// logging a panic in either instead of propagating it: one deferred recover
// serves both calls.
func (e *Executor) deliverRelease(t Task, r Result, rel Releaser) {
	defer func() {
		v := recover()
		switch {
		case v == nil:
		case t != nil: // in Done
			e.logPanic("pool: Task.Done panicked", Key{}, v)
			e.deliverRelease(nil, Result{}, rel)
		default:
			e.logPanic("pool: Task.Release panicked", Key{}, v)
		}
	}()
	if t != nil {
		t.Done(r)
		t = nil
	}
	rel.Release()
}

// logPanic logs a recovered panic value and the stack. A panic while
// formatting the value is itself recovered: the worker must survive.
func (e *Executor) logPanic(msg string, key Key, v any) {
	stack := debug.Stack()
	defer func() { _ = recover() }()
	e.cfg.log.LogAttrs(context.Background(), slog.LevelError, msg,
		slog.Uint64("owner", key.Owner), slog.String("id", key.ID),
		slog.Any("panic", v), slog.String("stack", string(stack)))
}

// Cancel ends the job with key, running or queued, with outcome [Cancelled]
// and reason as the result's error and its context's cause ([ErrCancelled]
// if reason is nil). A queued job is removed and never runs; a running job's
// context is cancelled and Done is called at once, without waiting for Run
// to return. The key is free for a new job when Cancel returns. Cancel
// reports whether it found the job.
func (e *Executor) Cancel(key Key, reason error) bool {
	if key.IsZero() {
		return false
	}
	if reason == nil {
		reason = ErrCancelled
	}
	h := e.keys.hashKey(key)
	e.mu.Lock()
	j := e.keys.get(key, h)
	if j == nil {
		e.mu.Unlock()
		return false
	}
	v := e.detachLocked(j, Cancelled)
	e.mu.Unlock()
	e.settle(j, v, Result{Outcome: Cancelled, Err: reason}, ctxCancelled)
	return true
}

// Running returns the number of jobs whose Run has not returned, including
// cancelled or timed-out jobs that are still running.
func (e *Executor) Running() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.running
}

// Queued returns the number of jobs waiting for a worker.
func (e *Executor) Queued() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.queue.n
}

// Cap returns the maximum number of jobs that run at once.
func (e *Executor) Cap() int { return e.cfg.maxRunning }

// Slots returns the executor's slot counter, shared by everyone who shares
// the Executor.
func (e *Executor) Slots() *Slots { return &e.slots }

// antsLogger sends ants' own messages (none are expected: the executor
// recovers every panic) to the configured slog.Logger.
type antsLogger struct{ log *slog.Logger }

func (l antsLogger) Printf(format string, args ...any) {
	l.log.Error(fmt.Sprintf(format, args...))
}
