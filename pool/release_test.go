package pool

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lifeTask is a Releaser for tests that records the order of the ends of Run
// and Done and of the call to Release, and every breach of Release's
// contract: a second Release, a Release while Run or Done is still going,
// and a Run or Done after Release.
type lifeTask struct {
	run  func(ctx context.Context) error // nil: return nil
	done func(Result)                    // called inside Done, if set

	mu       sync.Mutex
	events   []string
	breaches []string
	running  bool // Run has started and not returned
	inDone   bool // Done has been called and not returned
	results  []Result
	released chan struct{} // closed by the first Release
}

func newLifeTask(run func(ctx context.Context) error) *lifeTask {
	return &lifeTask{run: run, released: make(chan struct{})}
}

// recordLocked appends event and notes a call after Release. t.mu must be
// held.
func (t *lifeTask) recordLocked(event string) {
	t.events = append(t.events, event)
	if t.isReleased() && event != "release" {
		t.breaches = append(t.breaches, event+" after release")
	}
}

func (t *lifeTask) isReleased() bool {
	select {
	case <-t.released:
		return true
	default:
		return false
	}
}

func (t *lifeTask) Run(ctx context.Context) error {
	t.mu.Lock()
	t.running = true
	t.recordLocked("run")
	t.mu.Unlock()
	defer func() { // also on a panic or runtime.Goexit
		t.mu.Lock()
		t.running = false
		t.recordLocked("run returned")
		t.mu.Unlock()
	}()
	if t.run == nil {
		return nil
	}
	return t.run(ctx)
}

func (t *lifeTask) Done(r Result) {
	t.mu.Lock()
	t.inDone = true
	t.results = append(t.results, r)
	t.recordLocked("done " + r.Outcome.String())
	t.mu.Unlock()
	if t.done != nil {
		t.done(r)
	}
	t.mu.Lock()
	t.inDone = false
	t.recordLocked("done returned")
	t.mu.Unlock()
}

func (t *lifeTask) Release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.isReleased():
		t.breaches = append(t.breaches, "released twice")
		return
	case t.running:
		t.breaches = append(t.breaches, "released while Run is running")
	case t.inDone:
		t.breaches = append(t.breaches, "released while Done is running")
	}
	t.recordLocked("release")
	close(t.released)
}

// check waits for Release, then for everything to settle, and checks that
// no breach was recorded and that the events came in the order want. It
// runs in a synctest bubble, where the day it waits for passes at once.
func (t *lifeTask) check(tb testing.TB, want ...string) {
	tb.Helper()
	select {
	case <-t.released:
	case <-time.After(24 * time.Hour):
		tb.Fatalf("never released; events %q", t.snapshot())
	}
	synctest.Wait() // a late Run, Done or Release would be recorded by now
	t.mu.Lock()
	defer t.mu.Unlock()
	assert.Empty(tb, t.breaches)
	assert.Equal(tb, want, t.events)
}

func (t *lifeTask) snapshot() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.events...)
}

// outcome returns the one result delivered.
func (t *lifeTask) outcome(tb testing.TB) Result {
	tb.Helper()
	t.mu.Lock()
	defer t.mu.Unlock()
	require.Len(tb, t.results, 1)
	return t.results[0]
}

var _ Releaser = (*lifeTask)(nil)

// The task itself proves that it catches what it must: a second Release,
// a Release while Run or Done is running, and a call after Release.
func TestLifeTaskCatchesBreaches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, tc := range []struct {
			name   string
			misuse func(tk *lifeTask)
			breach string
		}{
			{"twice", func(tk *lifeTask) { tk.Release(); tk.Release() }, "released twice"},
			{"during Run", func(tk *lifeTask) {
				tk.run = func(context.Context) error { tk.Release(); return nil }
				_ = tk.Run(t.Context())
			}, "released while Run is running"},
			{"during Done", func(tk *lifeTask) {
				tk.done = func(Result) { tk.Release() }
				tk.Done(Result{Outcome: Completed})
			}, "released while Done is running"},
			{"Done after", func(tk *lifeTask) { tk.Release(); tk.Done(Result{Outcome: Completed}) }, "done completed after release"},
		} {
			tk := newLifeTask(nil)
			tc.misuse(tk)
			assert.Contains(t, tk.breaches, tc.breach, tc.name)
		}
	})
}

func TestReleaseCompleted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{})
		tk := newLifeTask(nil)
		require.NoError(t, e.Submit(t.Context(), Key{Owner: 1, ID: "a"}, tk))
		tk.check(t, "run", "run returned", "done completed", "done returned", "release")
	})
}

// An inline job is released on the caller's goroutine, before SubmitInline
// returns, when nothing else decided its outcome.
func TestReleaseInline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{})
		for _, tc := range []struct {
			name string
			run  func(context.Context) error
			want Outcome
		}{
			{"completed", nil, Completed},
			{"failed", func(context.Context) error { return errors.New("boom") }, Failed},
			{"panicked", func(context.Context) error { panic("boom") }, Failed},
		} {
			tk := newLifeTask(tc.run)
			inline, err := e.SubmitInline(t.Context(), Key{Owner: 1, ID: "i"}, time.Minute, tk)
			require.NoError(t, err)
			require.True(t, inline)
			assert.True(t, tk.isReleased(), "%s: released before SubmitInline returns", tc.name)
			tk.check(t, "run", "run returned", "done "+tc.want.String(), "done returned", "release")
		}
	})
}

func TestReleasePanicAndGoexit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{MaxConcurrency: 1})
		panics := newLifeTask(func(context.Context) error { panic("boom") })
		exits := newLifeTask(func(context.Context) error { runtime.Goexit(); return nil })
		queued := newLifeTask(nil)
		g := newGate()
		openAtEnd(t, g)
		blocker := newLifeTask(blockOn(g))
		require.NoError(t, e.Submit(t.Context(), Key{}, blocker))
		for _, tk := range []*lifeTask{panics, exits, queued} {
			require.NoError(t, e.Submit(t.Context(), Key{}, tk))
		}
		g.open()
		want := []string{"run", "run returned", "done failed", "done returned", "release"}
		panics.check(t, want...)
		assert.ErrorIs(t, panics.outcome(t).Err, ErrPanicked)
		exits.check(t, want...)
		assert.ErrorIs(t, exits.outcome(t).Err, ErrPanicked)
		queued.check(t, "run", "run returned", "done completed", "done returned", "release")
	})
}

// A timeout delivered while Run is still running: Done comes first, and
// Release waits for Run, which returns later, on its worker.
func TestReleaseTimeoutBeforeRunReturns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{})
		g := newGate()
		openAtEnd(t, g)
		tk := newLifeTask(blockOn(g)) // ignores its context
		require.NoError(t, e.SubmitTimeout(t.Context(), Key{Owner: 1, ID: "t"}, time.Second, tk))
		time.Sleep(time.Second)
		synctest.Wait()
		assert.Equal(t, Result{Outcome: TimedOut, Err: ErrTimeout}, tk.outcome(t))
		assert.False(t, tk.isReleased(), "Run is still running")

		time.Sleep(time.Hour)
		synctest.Wait()
		assert.False(t, tk.isReleased(), "Run is still running an hour later")
		g.open()
		tk.check(t, "run", "done timed out", "done returned", "run returned", "release")
	})
}

// The other order: Run returns while the timeout is being delivered, so the
// goroutine delivering it (the timer's) releases the task once Done returns.
func TestReleaseRunReturnsDuringDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{})
		inDone, finishDone := newGate(), newGate()
		openAtEnd(t, inDone, finishDone)
		tk := newLifeTask(func(ctx context.Context) error { <-ctx.Done(); <-inDone; return ctx.Err() })
		tk.done = func(Result) { inDone.open(); <-finishDone }
		require.NoError(t, e.SubmitTimeout(t.Context(), Key{Owner: 1, ID: "t"}, time.Second, tk))
		<-inDone
		synctest.Wait() // Run has seen its context end and returned
		tk.mu.Lock()
		assert.Equal(t, []string{"run", "done timed out", "run returned"}, tk.events)
		tk.mu.Unlock()
		assert.Equal(t, 0, e.Running())
		assert.False(t, tk.isReleased(), "Done is still running")

		finishDone.open()
		tk.check(t, "run", "done timed out", "run returned", "done returned", "release")
	})
}

// The same two orders for Cancel, whose caller delivers the outcome, and for
// an inline job: then SubmitInline may return before the task is released.
func TestReleaseCancelRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, inline := range []bool{false, true} {
			e := newExecutor(t, Config{})
			key := Key{Owner: 1, ID: "c"}

			// Done returns first: Run's worker (or the inline caller) releases.
			g := newGate()
			openAtEnd(t, g)
			first := newLifeTask(blockOn(g))
			ret := submitOn(e, key, first, inline)
			synctest.Wait()
			require.True(t, e.Cancel(key, nil))
			assert.False(t, first.isReleased())
			g.open()
			require.NoError(t, <-ret)
			first.check(t, "run", "done cancelled", "done returned", "run returned", "release")

			// Run returns first: Cancel's caller releases, after Done.
			inDone, finishDone := newGate(), newGate()
			openAtEnd(t, inDone, finishDone)
			second := newLifeTask(func(ctx context.Context) error { <-ctx.Done(); <-inDone; return nil })
			second.done = func(Result) { inDone.open(); <-finishDone }
			ret = submitOn(e, key, second, inline)
			synctest.Wait()
			cancelled := make(chan bool)
			go func() { cancelled <- e.Cancel(key, nil) }()
			<-inDone
			synctest.Wait() // Run has seen its context end and returned
			require.NoError(t, <-ret, "SubmitInline returns while Done is running")
			assert.False(t, second.isReleased())
			finishDone.open()
			assert.True(t, <-cancelled)
			assert.True(t, second.isReleased(), "released before Cancel returns")
			second.check(t, "run", "done cancelled", "run returned", "done returned", "release")
		}
	})
}

// openAtEnd opens the gates still closed when the test ends, so that a
// failed test does not leave a job blocked and its Close waiting.
func openAtEnd(tb testing.TB, gates ...gate) {
	tb.Cleanup(func() {
		for _, g := range gates {
			select {
			case <-g:
			default:
				g.open()
			}
		}
	})
}

// submitOn submits tk under key on a goroutine, inline or to a worker, and
// reports the submission's error once it returns.
func submitOn(e *Executor, key Key, tk Task, inline bool) <-chan error {
	if inline {
		return submitInline(e, context.Background(), key, NoTimeout, tk)
	}
	ret := make(chan error, 1)
	ret <- e.SubmitTimeout(context.Background(), key, NoTimeout, tk)
	return ret
}

// Jobs that never run are released once Done returns: cancelled or timed out
// in the queue, or dropped by Close.
func TestReleaseNeverRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{MaxConcurrency: 1})
		g := newGate()
		openAtEnd(t, g)
		blocker := newLifeTask(blockOn(g))
		require.NoError(t, e.SubmitTimeout(t.Context(), Key{}, NoTimeout, blocker))

		cancelled, timedOut := newLifeTask(nil), newLifeTask(nil)
		require.NoError(t, e.Submit(t.Context(), Key{Owner: 1, ID: "c"}, cancelled))
		require.NoError(t, e.SubmitTimeout(t.Context(), Key{}, time.Second, timedOut))
		require.True(t, e.Cancel(Key{Owner: 1, ID: "c"}, nil))
		cancelled.check(t, "done cancelled", "done returned", "release")
		timedOut.check(t, "done timed out", "done returned", "release")

		closed := []*lifeTask{newLifeTask(nil), newLifeTask(nil), newLifeTask(nil)}
		for _, tk := range closed {
			require.NoError(t, e.SubmitTimeout(t.Context(), Key{}, NoTimeout, tk))
		}
		closeDone := make(chan error)
		go func() { closeDone <- e.Close(context.Background()) }()
		for _, tk := range closed {
			tk.check(t, "done cancelled", "done returned", "release")
			assert.ErrorIs(t, tk.outcome(t).Err, ErrClosed)
		}
		assert.False(t, blocker.isReleased())
		g.open()
		require.NoError(t, <-closeDone)
		blocker.check(t, "run", "run returned", "done completed", "done returned", "release")
	})
}

// A job whose submitter's context ends gets no Done, but is released all the
// same: at once if it was queued, once Run returns if it was running.
func TestReleaseSubmitterEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{MaxConcurrency: 1})
		ctx, hangUp := context.WithCancel(t.Context())
		g := newGate()
		openAtEnd(t, g)
		running := newLifeTask(blockOn(g))
		queued := newLifeTask(nil)
		require.NoError(t, e.Submit(ctx, Key{}, running))
		require.NoError(t, e.Submit(ctx, Key{}, queued))
		synctest.Wait() // running has started
		hangUp()
		queued.check(t, "release")
		assert.False(t, running.isReleased())
		g.open()
		running.check(t, "run", "run returned", "release")
	})
}

// Close that gives up delivers Cancelled for a running job; the job is
// released when its Run returns, whenever that is.
func TestReleaseCloseGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{})
		g := newGate()
		openAtEnd(t, g)
		tk := newLifeTask(blockOn(g))
		require.NoError(t, e.Submit(t.Context(), Key{}, tk))
		synctest.Wait()
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		assert.ErrorIs(t, e.Close(ctx), context.DeadlineExceeded)
		assert.False(t, tk.isReleased())
		g.open()
		tk.check(t, "run", "done cancelled", "done returned", "run returned", "release")
		require.NoError(t, e.Close(context.Background()))
	})
}

// A job that was not admitted is never released: the submitter keeps it.
func TestReleaseNotAdmitted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{MaxConcurrency: 1, MaxQueue: NoQueue})
		g := newGate()
		openAtEnd(t, g)
		defer g.open()
		require.NoError(t, e.Submit(t.Context(), Key{Owner: 1, ID: "a"}, newTask(blockOn(g))))
		dup, over := newLifeTask(nil), newLifeTask(nil)
		assert.ErrorIs(t, e.Submit(t.Context(), Key{Owner: 1, ID: "a"}, dup), ErrDuplicateKey)
		assert.ErrorIs(t, e.Submit(t.Context(), Key{}, over), ErrOverloaded)
		synctest.Wait()
		assert.False(t, dup.isReleased())
		assert.False(t, over.isReleased())
		assert.Empty(t, dup.events)
		assert.Empty(t, over.events)
	})
}

type panicRelease struct{ Func }

func (panicRelease) Release() { panic("in Release") }

func TestReleasePanicIsRecovered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs logBuffer
		e := newExecutor(t, Config{MaxConcurrency: 1, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		inline, err := e.SubmitInline(t.Context(), Key{}, 0, panicRelease{Func(func(context.Context) error { return nil })})
		require.NoError(t, err)
		assert.True(t, inline)
		require.NoError(t, e.Submit(t.Context(), Key{}, panicRelease{Func(func(context.Context) error { return nil })}))
		synctest.Wait()
		next := newLifeTask(nil)
		require.NoError(t, e.Submit(t.Context(), Key{}, next))
		next.check(t, "run", "run returned", "done completed", "done returned", "release")
		assert.Equal(t, 2, strings.Count(logs.String(), "pool: Task.Release panicked"))
	})
}

// Release may submit the task again: the executor is through with it.
func TestReleaseResubmits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{})
		tk := &resubmitTask{e: e, left: 5, finished: make(chan struct{})}
		require.NoError(t, e.Submit(t.Context(), Key{Owner: 1, ID: "r"}, tk))
		<-tk.finished
		assert.Equal(t, 5, tk.runs)
	})
}

type resubmitTask struct {
	e        *Executor
	left     int
	runs     int
	finished chan struct{}
}

func (t *resubmitTask) Run(context.Context) error { t.runs++; return nil }
func (t *resubmitTask) Done(Result)               {}
func (t *resubmitTask) Release() {
	if t.left--; t.left == 0 {
		close(t.finished)
		return
	}
	if err := t.e.Submit(context.Background(), Key{Owner: 1, ID: "r"}, t); err != nil {
		panic(fmt.Sprint("resubmit: ", err))
	}
}

// panicDoneTask's Done panics; it is released all the same.
type panicDoneTask struct {
	Func
	released chan struct{}
}

func (panicDoneTask) Done(Result)     { panic("in Done") }
func (t panicDoneTask) Release()      { close(t.released) }
func newPanicDoneTask() panicDoneTask { return panicDoneTask{Func(blockOnCtx), make(chan struct{})} }

func blockOnCtx(ctx context.Context) error { <-ctx.Done(); return nil }

// waitClosed waits for c to be closed, failing after a day of the bubble's
// time, which passes at once.
func waitClosed(tb testing.TB, c <-chan struct{}) {
	tb.Helper()
	select {
	case <-c:
	case <-time.After(24 * time.Hour):
		tb.Fatal("never released")
	}
}

// A panic in Done is logged, and Release follows: inline, on a worker, and
// for a job that leaves the queue.
func TestReleaseAfterDonePanics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs logBuffer
		e := newExecutor(t, Config{MaxConcurrency: 1, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		inline, running, queued := newPanicDoneTask(), newPanicDoneTask(), newPanicDoneTask()
		inline.Func = func(context.Context) error { return nil }
		ok, err := e.SubmitInline(t.Context(), Key{}, 0, inline)
		require.NoError(t, err)
		require.True(t, ok)
		waitClosed(t, inline.released)

		require.NoError(t, e.Submit(t.Context(), Key{Owner: 1, ID: "r"}, running))
		require.NoError(t, e.Submit(t.Context(), Key{Owner: 1, ID: "q"}, queued))
		require.True(t, e.Cancel(Key{Owner: 1, ID: "q"}, nil))
		waitClosed(t, queued.released)
		require.True(t, e.Cancel(Key{Owner: 1, ID: "r"}, nil)) // Run returns at once: either side may release
		waitClosed(t, running.released)
		synctest.Wait()
		assert.Equal(t, 3, strings.Count(logs.String(), "pool: Task.Done panicked"))
		assert.NotContains(t, logs.String(), "Task.Release panicked")
	})
}
