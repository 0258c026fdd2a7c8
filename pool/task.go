package pool

import "context"

// Key names a job so that [Executor.Cancel] can find it and Submit can refuse
// a duplicate. A transport typically uses its connection as Owner and the
// request id as ID. The zero Key means "no key": such jobs are neither checked
// for duplicates nor reachable by Cancel.
//
// The executor keeps the Key until the job ends, so ID must not alias a
// buffer that is reused (convert borrowed bytes with string(b)).
type Key struct {
	Owner uint64
	ID    string
}

// IsZero reports whether k is the zero Key, which means "no key".
func (k Key) IsZero() bool { return k.Owner == 0 && len(k.ID) == 0 } // k == Key{} calls memequal

// Task is one unit of work. A transport implements it on its per-request
// value, so that submitting converts a pointer to an interface and allocates
// nothing.
type Task interface {
	// Run does the work. ctx carries the submitter's values, ends when the
	// submitter's context ends, at the job's deadline (context.Cause is
	// [ErrTimeout]), on [Executor.Cancel] (the cause is the reason), or when
	// [Executor.Close] gives up waiting (the cause is [ErrClosed]); it is
	// also cancelled once Run returns. A non-nil error makes the outcome
	// [Failed]. A panic is recovered and logged; the outcome is [Failed] with
	// [ErrPanicked].
	Run(ctx context.Context) error

	// Done receives the outcome exactly once for every admitted job, except
	// when the submitter's context ended first: then nothing is delivered.
	// It is called as soon as the outcome is known, which for a timeout or a
	// cancellation can be before Run returns, and Run may never be called
	// at all for a job that left the queue. Done may run on a worker, a
	// timer goroutine, or the goroutine calling Cancel or Close; it must
	// not block for long. It may call Submit and Cancel, but not Close,
	// which waits for it. A Task that must know when Run is over too
	// implements [Releaser].
	Done(r Result)
}

// Releaser is implemented by a [Task] that wants to be told when the
// executor is through with it, typically to recycle it: Run and Done may
// each be the last to return (a timeout is delivered while Run goes on; a
// job that leaves the queue never runs), so neither can do it alone.
//
// Release is called exactly once for every admitted job (Submit returned
// nil), after both
//   - Run has returned, or will never be called (the job left the queue,
//     its context ended before it started, or the executor was closed), and
//   - Done has returned, or will never be called (the submitter's context
//     ended first).
//
// Both happen before Release in the sense of the Go memory model, so Release
// sees what Run and Done wrote. From its call on, the executor never calls
// or touches the task again: it may be reused or submitted again.
// A job that was not admitted is never released: the submitter keeps it.
//
// Release runs on the goroutine that finished with the job last: a worker,
// the caller of SubmitInline, a timer goroutine, the goroutine that saw the
// submitter's context end, or the goroutine calling Cancel or Close.
// It must not block for long; it may call Submit and Cancel, but not Close,
// which waits for it as it waits for Done. A panic in Release is recovered
// and logged, and so is one in Done, which Release then follows as usual.
// Looking for Releaser costs one type assertion per job.
type Releaser interface {
	Release()
}

// Func adapts a function to a [Task] whose outcome is not needed.
type Func func(ctx context.Context) error

// Run calls f(ctx).
func (f Func) Run(ctx context.Context) error { return f(ctx) }

// Done does nothing.
func (Func) Done(Result) {}

// Outcome says how a job ended.
type Outcome uint8

// The outcomes of a job. The zero Outcome is not used.
const (
	// Completed: Run returned nil.
	Completed Outcome = iota + 1
	// Cancelled: [Executor.Cancel], or [Executor.Close] (reason [ErrClosed]).
	Cancelled
	// TimedOut: the deadline passed while the job was queued or running.
	TimedOut
	// Failed: Run returned an error, or panicked ([ErrPanicked]).
	Failed
)

var outcomeNames = [...]string{"invalid", "completed", "cancelled", "timed out", "failed"}

// String returns "completed", "cancelled", "timed out" or "failed".
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return outcomeNames[0]
}

// Result is the outcome of a job, given to [Task.Done].
type Result struct {
	Outcome Outcome
	// Err is nil for [Completed]. It is the reason passed to Cancel (or
	// [ErrCancelled], or [ErrClosed]) for [Cancelled], [ErrTimeout] for
	// [TimedOut], and the error of Run or [ErrPanicked] for [Failed].
	Err error
}
