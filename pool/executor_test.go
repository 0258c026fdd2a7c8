package pool

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSubmitCompleted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{})
		tk := newTask(nil)
		require.NoError(t, e.Submit(t.Context(), Key{}, tk))
		assert.Equal(t, Result{Outcome: Completed}, tk.result(t))
		assert.True(t, tk.ran.Load())
		synctest.Wait()
		st := e.Stats()
		assert.Equal(t, 0, st.Running)
		assert.EqualValues(t, 1, st.Admitted)
		assert.EqualValues(t, 1, st.Completed)
	})
}

func TestSubmitFailed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{})
		errBoom := errors.New("boom")
		tk := newTask(func(context.Context) error { return errBoom })
		require.NoError(t, e.Submit(t.Context(), Key{}, tk))
		r := tk.result(t)
		assert.Equal(t, Failed, r.Outcome)
		assert.ErrorIs(t, r.Err, errBoom)
		assert.EqualValues(t, 1, e.Stats().Failed)
	})
}

func TestSubmitPanic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs logBuffer
		e := newExecutor(t, Config{MaxConcurrency: 1, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		tk := newTask(func(context.Context) error { panic("secret panic text") })
		require.NoError(t, e.Submit(t.Context(), Key{Owner: 7, ID: "req-1"}, tk))
		r := tk.result(t)
		assert.Equal(t, Failed, r.Outcome)
		assert.ErrorIs(t, r.Err, ErrPanicked)
		assert.NotContains(t, r.Err.Error(), "secret")

		// The same single worker goes on.
		next := newTask(nil)
		require.NoError(t, e.Submit(t.Context(), Key{}, next))
		assert.Equal(t, Completed, next.result(t).Outcome)

		out := logs.String()
		assert.Contains(t, out, "pool: job panicked")
		assert.Contains(t, out, "secret panic text")
		assert.Contains(t, out, "id=req-1")
		assert.Contains(t, out, "TestSubmitPanic", "the stack is logged")
		st := e.Stats()
		assert.EqualValues(t, 1, st.Panicked)
		assert.EqualValues(t, 1, st.Failed)
		assert.EqualValues(t, 1, st.Completed)
	})
}

// A panic value whose formatting panics too does not kill the worker.
func TestSubmitPanicUnprintable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs logBuffer
		e := newExecutor(t, Config{MaxConcurrency: 1, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		tk := newTask(func(context.Context) error { panic(badError{}) })
		require.NoError(t, e.Submit(t.Context(), Key{}, tk))
		assert.Equal(t, Result{Outcome: Failed, Err: ErrPanicked}, tk.result(t))
		next := newTask(nil)
		require.NoError(t, e.Submit(t.Context(), Key{}, next))
		assert.Equal(t, Completed, next.result(t).Outcome)
	})
}

type badError struct{}

func (badError) Error() string { panic("cannot format") }

func TestSubmitGoexit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{MaxConcurrency: 1})
		g := newGate()
		first := newTask(func(context.Context) error { <-g; runtime.Goexit(); return nil })
		queued := newTask(nil)
		require.NoError(t, e.Submit(t.Context(), Key{}, first))
		require.NoError(t, e.Submit(t.Context(), Key{}, queued))
		g.open()
		r := first.result(t)
		assert.Equal(t, Failed, r.Outcome)
		assert.ErrorIs(t, r.Err, ErrPanicked)
		assert.Equal(t, Completed, queued.result(t).Outcome, "the queue moves on")
	})
}

func TestDonePanicIsRecovered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs logBuffer
		e := newExecutor(t, Config{MaxConcurrency: 1, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		require.NoError(t, e.Submit(t.Context(), Key{}, panicDone{}))
		synctest.Wait()
		next := newTask(nil)
		require.NoError(t, e.Submit(t.Context(), Key{}, next))
		assert.Equal(t, Completed, next.result(t).Outcome)
		assert.Contains(t, logs.String(), "pool: Task.Done panicked")
	})
}

type panicDone struct{}

func (panicDone) Run(context.Context) error { return nil }
func (panicDone) Done(Result)               { panic("in Done") }

func TestSubmitNilTaskPanics(t *testing.T) {
	e := newExecutor(t, Config{})
	assert.Panics(t, func() { _ = e.Submit(context.Background(), Key{}, nil) })
}

func TestSubmitEndedContext(t *testing.T) {
	e := newExecutor(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tk := newTask(nil)
	assert.ErrorIs(t, e.Submit(ctx, Key{}, tk), context.Canceled)
	assert.False(t, tk.delivered())
	assert.Zero(t, e.Stats().Admitted)
}

func TestTimeoutRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{DefaultTimeout: 100 * time.Millisecond})
		start := time.Now()
		var deadline time.Time
		var err, cause error
		var elapsed time.Duration
		tk := newTask(func(ctx context.Context) error {
			deadline, _ = ctx.Deadline()
			<-ctx.Done()
			elapsed = time.Since(start)
			err, cause = ctx.Err(), context.Cause(ctx)
			return ctx.Err()
		})
		require.NoError(t, e.Submit(t.Context(), Key{}, tk))
		r := tk.result(t)
		assert.Equal(t, Result{Outcome: TimedOut, Err: ErrTimeout}, r)
		synctest.Wait()
		assert.Equal(t, start.Add(100*time.Millisecond), deadline)
		assert.Equal(t, 100*time.Millisecond, elapsed)
		assert.Equal(t, context.DeadlineExceeded, err)
		assert.Equal(t, ErrTimeout, cause)
		assert.ErrorIs(t, cause, context.DeadlineExceeded)
		assert.EqualValues(t, 1, e.Stats().TimedOut)
	})
}

// Seed: a request queued behind a blocker times out; the blocker keeps running.
func TestTimeoutQueuedBehindBlocker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{MaxConcurrency: 1, DefaultTimeout: 30 * time.Millisecond})
		g := newGate()
		blocker := newTask(blockOn(g))
		require.NoError(t, e.SubmitTimeout(t.Context(), Key{}, NoTimeout, blocker))
		start := time.Now()
		queued := newTask(nil)
		require.NoError(t, e.Submit(t.Context(), Key{}, queued))

		assert.Equal(t, Result{Outcome: TimedOut, Err: ErrTimeout}, queued.result(t))
		assert.Equal(t, 30*time.Millisecond, time.Since(start))
		assert.False(t, queued.ran.Load())
		synctest.Wait()
		st := e.Stats()
		assert.Equal(t, 1, st.Running, "the blocker is still running")
		assert.Equal(t, 0, st.Queued)
		assert.False(t, blocker.delivered())

		g.open()
		assert.Equal(t, Completed, blocker.result(t).Outcome)
	})
}

func TestDeadlineCountsFromAdmission(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{MaxConcurrency: 1})
		g := newGate()
		require.NoError(t, e.Submit(t.Context(), Key{}, newTask(blockOn(g))))
		admitted := time.Now()
		var deadline time.Time
		var started time.Duration
		queued := newTask(func(ctx context.Context) error {
			started = time.Since(admitted)
			deadline, _ = ctx.Deadline()
			<-ctx.Done()
			return nil
		})
		require.NoError(t, e.SubmitTimeout(t.Context(), Key{}, 100*time.Millisecond, queued))
		time.Sleep(40 * time.Millisecond) // fake time: the job waits 40 ms in the queue
		g.open()
		assert.Equal(t, TimedOut, queued.result(t).Outcome)
		assert.Equal(t, 100*time.Millisecond, time.Since(admitted))
		assert.Equal(t, 40*time.Millisecond, started)
		assert.Equal(t, admitted.Add(100*time.Millisecond), deadline)
	})
}

func TestNoTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{DefaultTimeout: NoTimeout})
		var hasDeadline bool
		tk := newTask(func(ctx context.Context) error {
			_, hasDeadline = ctx.Deadline()
			time.Sleep(time.Hour) // fake time
			return ctx.Err()
		})
		require.NoError(t, e.Submit(t.Context(), Key{}, tk))
		assert.Equal(t, Completed, tk.result(t).Outcome)
		assert.False(t, hasDeadline)
	})
}

func TestSubmitterDeadlineEarlier(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{})
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
		defer cancel()
		want, _ := ctx.Deadline()
		var got time.Time
		tk := newTask(func(ctx context.Context) error { got, _ = ctx.Deadline(); return nil })
		require.NoError(t, e.Submit(ctx, Key{}, tk))
		assert.Equal(t, Completed, tk.result(t).Outcome)
		assert.Equal(t, want, got)
	})
}

func TestCancelRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{})
		key := Key{Owner: 1, ID: "7"}
		reason := errors.New("client cancelled")
		g := newGate()
		var err, cause error
		tk := newTask(func(ctx context.Context) error {
			<-ctx.Done()
			err, cause = ctx.Err(), context.Cause(ctx)
			<-g // keeps running after the cancellation
			return nil
		})
		require.NoError(t, e.Submit(t.Context(), key, tk))
		synctest.Wait()
		require.True(t, e.Cancel(key, reason))

		assert.Equal(t, Result{Outcome: Cancelled, Err: reason}, tk.result(t), "delivered before Run returns")
		synctest.Wait()
		assert.Equal(t, context.Canceled, err)
		assert.Equal(t, reason, cause)
		assert.Equal(t, 1, e.Running())

		// The key is free at once.
		again := newTask(nil)
		require.NoError(t, e.Submit(t.Context(), key, again))
		assert.Equal(t, Completed, again.result(t).Outcome)

		g.open()
		synctest.Wait()
		assert.Equal(t, 0, e.Running())
		assert.EqualValues(t, 1, tk.count.Load(), "no second delivery when Run returns")
		assert.EqualValues(t, 1, e.Stats().Cancelled)
	})
}

func TestCancelQueued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{MaxConcurrency: 1})
		g := newGate()
		require.NoError(t, e.Submit(t.Context(), Key{}, newTask(blockOn(g))))
		key := Key{ID: "q"}
		queued := newTask(nil)
		require.NoError(t, e.Submit(t.Context(), key, queued))
		require.Equal(t, 1, e.Queued())

		require.True(t, e.Cancel(key, nil))
		assert.Equal(t, Result{Outcome: Cancelled, Err: ErrCancelled}, queued.result(t))
		assert.Equal(t, 0, e.Queued())
		g.open()
		synctest.Wait()
		assert.False(t, queued.ran.Load())
	})
}

func TestCancelUnknown(t *testing.T) {
	e := newExecutor(t, Config{})
	assert.False(t, e.Cancel(Key{ID: "nope"}, nil))
	assert.False(t, e.Cancel(Key{}, nil), "the zero key names no job")
}

// Seed: when the submitter's context ends, its queued jobs are dropped and
// its running jobs cancelled, with no delivery; other submitters go on.
func TestSubmitterContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{MaxConcurrency: 1})
		conn, hangUp := context.WithCancelCause(t.Context())
		errGone := errors.New("connection closed")
		g := newGate()
		var cause error
		running := newTask(func(ctx context.Context) error {
			<-ctx.Done()
			cause = context.Cause(ctx)
			<-g
			return nil
		})
		queued := newTask(nil)
		other := newTask(nil)
		require.NoError(t, e.Submit(conn, Key{Owner: 1, ID: "1"}, running))
		require.NoError(t, e.Submit(conn, Key{Owner: 1, ID: "2"}, queued))
		require.NoError(t, e.Submit(t.Context(), Key{Owner: 2, ID: "1"}, other))
		require.Equal(t, 2, e.Queued())
		synctest.Wait() // the first job is running

		hangUp(errGone)
		synctest.Wait()
		assert.Equal(t, errGone, cause)
		assert.Equal(t, 1, e.Queued(), "the dead submitter's queued job left at once")
		assert.Equal(t, 1, e.Running())

		g.open()
		assert.Equal(t, Completed, other.result(t).Outcome)
		synctest.Wait()
		assert.False(t, queued.ran.Load())
		assert.False(t, queued.delivered())
		assert.False(t, running.delivered())
		st := e.Stats()
		assert.EqualValues(t, 2, st.Cancelled)
		assert.EqualValues(t, 1, st.Completed)
	})
}

func TestDuplicateKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{MaxConcurrency: 1})
		g := newGate()
		running, queued := Key{Owner: 1, ID: "a"}, Key{Owner: 1, ID: "b"}
		first := newTask(blockOn(g))
		require.NoError(t, e.Submit(t.Context(), running, first))
		require.NoError(t, e.Submit(t.Context(), queued, newTask(nil)))

		assert.ErrorIs(t, e.Submit(t.Context(), running, newTask(nil)), ErrDuplicateKey)
		assert.ErrorIs(t, e.Submit(t.Context(), queued, newTask(nil)), ErrDuplicateKey)
		require.NoError(t, e.Submit(t.Context(), Key{Owner: 2, ID: "a"}, newTask(nil)), "another owner may use the id")
		require.NoError(t, e.Submit(t.Context(), Key{}, newTask(nil)))
		require.NoError(t, e.Submit(t.Context(), Key{}, newTask(nil)), "the zero key is never a duplicate")

		g.open()
		assert.Equal(t, Completed, first.result(t).Outcome)
		synctest.Wait()
		require.NoError(t, e.Submit(t.Context(), running, newTask(nil)), "a finished job frees its key")
		st := e.Stats()
		assert.Zero(t, st.Rejected)
		assert.EqualValues(t, 6, st.Admitted)
	})
}

// Seed: max_concurrency 1, max_queue 0 refuses a second job at once.
func TestOverloadedWithoutQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{MaxConcurrency: 1, MaxQueue: NoQueue})
		g := newGate()
		first := newTask(blockOn(g))
		require.NoError(t, e.Submit(t.Context(), Key{}, first))
		second := newTask(nil)
		assert.ErrorIs(t, e.Submit(t.Context(), Key{}, second), ErrOverloaded)
		assert.False(t, second.delivered())
		st := e.Stats()
		assert.EqualValues(t, 1, st.Rejected)
		assert.Equal(t, 0, st.MaxQueue)
		g.open()
		assert.Equal(t, Completed, first.result(t).Outcome)
	})
}

func TestOverloadedQueueFull(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{MaxConcurrency: 1, MaxQueue: 1})
		g := newGate()
		require.NoError(t, e.Submit(t.Context(), Key{}, newTask(blockOn(g))))
		require.NoError(t, e.Submit(t.Context(), Key{}, newTask(nil)))
		assert.ErrorIs(t, e.Submit(t.Context(), Key{}, newTask(nil)), ErrOverloaded)
		g.open()
	})
}

// Seed: with concurrency 2 a fast job finishes before an earlier slow one.
func TestFastJobOvertakesSlowOne(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{MaxConcurrency: 2})
		var mu sync.Mutex
		var order []string
		job := func(name string, d time.Duration) *task {
			return newTask(func(context.Context) error {
				time.Sleep(d) // fake time
				mu.Lock()
				order = append(order, name)
				mu.Unlock()
				return nil
			})
		}
		slow, fast := job("slow", time.Second), job("fast", time.Millisecond)
		require.NoError(t, e.Submit(t.Context(), Key{}, slow))
		require.NoError(t, e.Submit(t.Context(), Key{}, fast))
		assert.Equal(t, Completed, fast.result(t).Outcome)
		assert.Equal(t, Completed, slow.result(t).Outcome)
		assert.Equal(t, []string{"fast", "slow"}, order)
	})
}

func TestQueueIsFIFO(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{MaxConcurrency: 1, MaxQueue: 5})
		g := newGate()
		require.NoError(t, e.Submit(t.Context(), Key{}, newTask(blockOn(g))))
		var order []int
		tasks := make([]*task, 5)
		for i := range tasks {
			tasks[i] = newTask(func(context.Context) error { order = append(order, i); return nil })
			require.NoError(t, e.Submit(t.Context(), Key{}, tasks[i]))
		}
		g.open()
		for _, tk := range tasks {
			assert.Equal(t, Completed, tk.result(t).Outcome)
		}
		assert.Equal(t, []int{0, 1, 2, 3, 4}, order)
	})
}

func TestSubmitFromRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{MaxConcurrency: 1, MaxQueue: 1})
		inner := newTask(nil)
		outer := newTask(func(ctx context.Context) error {
			return e.Submit(ctx, Key{}, inner)
		})
		require.NoError(t, e.Submit(t.Context(), Key{}, outer))
		assert.Equal(t, Completed, outer.result(t).Outcome)
		// inner's submitter context ended when outer returned: no delivery.
		synctest.Wait()
		assert.False(t, inner.delivered())

		inner2 := newTask(nil)
		outer2 := newTask(func(context.Context) error {
			return e.Submit(context.Background(), Key{}, inner2)
		})
		require.NoError(t, e.Submit(t.Context(), Key{}, outer2))
		assert.Equal(t, Completed, outer2.result(t).Outcome)
		assert.Equal(t, Completed, inner2.result(t).Outcome)
	})
}

// Seed: close with running and queued work.
func TestCloseWithRunningAndQueued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e, err := New(Config{MaxConcurrency: 1})
		require.NoError(t, err)
		g := newGate()
		running := newTask(blockOn(g))
		q1, q2 := newTask(nil), newTask(nil)
		require.NoError(t, e.Submit(t.Context(), Key{}, running))
		require.NoError(t, e.Submit(t.Context(), Key{ID: "q1"}, q1))
		require.NoError(t, e.Submit(t.Context(), Key{}, q2))

		closed := make(chan error, 1)
		go func() { closed <- e.Close(context.Background()) }()
		assert.Equal(t, Result{Outcome: Cancelled, Err: ErrClosed}, q1.result(t))
		assert.Equal(t, Result{Outcome: Cancelled, Err: ErrClosed}, q2.result(t))
		synctest.Wait()
		select {
		case <-closed:
			t.Fatal("Close returned while a job was running")
		default:
		}
		assert.ErrorIs(t, e.Submit(t.Context(), Key{}, newTask(nil)), ErrClosed)
		_, err = e.Slots().Acquire(t.Context())
		assert.ErrorIs(t, err, ErrClosed)

		g.open()
		assert.Equal(t, Completed, running.result(t).Outcome)
		require.NoError(t, <-closed)
		require.NoError(t, e.Close(context.Background()), "Close is idempotent")
		assert.False(t, q1.ran.Load())
		st := e.Stats()
		assert.EqualValues(t, 2, st.Cancelled)
		assert.Equal(t, 0, st.Running+st.Queued)
	})
}

func TestCloseGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e, err := New(Config{})
		require.NoError(t, err)
		g := newGate()
		var cause error
		stubborn := newTask(func(ctx context.Context) error {
			<-g
			cause = context.Cause(ctx)
			return nil
		})
		require.NoError(t, e.Submit(t.Context(), Key{}, stubborn))

		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		defer cancel()
		start := time.Now()
		assert.ErrorIs(t, e.Close(ctx), context.DeadlineExceeded)
		assert.Equal(t, 50*time.Millisecond, time.Since(start))
		assert.Equal(t, Result{Outcome: Cancelled, Err: ErrClosed}, stubborn.result(t))
		assert.Equal(t, 1, e.Running())

		g.open()
		require.NoError(t, e.Close(context.Background()))
		assert.Equal(t, ErrClosed, cause)
		assert.Equal(t, 0, e.Running())
	})
}

func TestJobContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{})
		type ctxKey struct{}
		parent := context.WithValue(t.Context(), ctxKey{}, "v")
		key := Key{ID: "ctx"}
		g := newGate()
		var value any
		var child context.Context
		afterFunc := make(chan struct{})
		var retained context.Context
		tk := newTask(func(ctx context.Context) error {
			retained = ctx
			value = ctx.Value(ctxKey{})
			var cancel context.CancelFunc
			child, cancel = context.WithCancel(ctx)
			defer cancel()
			context.AfterFunc(ctx, func() { close(afterFunc) })
			<-g
			return nil
		})
		require.NoError(t, e.Submit(parent, key, tk))
		synctest.Wait()
		assert.Equal(t, "v", value)
		assert.NoError(t, child.Err())
		require.True(t, e.Cancel(key, nil))
		<-afterFunc
		assert.ErrorIs(t, child.Err(), context.Canceled)
		assert.Equal(t, ErrCancelled, context.Cause(child))
		g.open()
		tk.result(t)
		synctest.Wait()
		assert.ErrorIs(t, retained.Err(), context.Canceled, "a retained context reads as ended")
	})
}

func TestContextEndsWhenRunReturns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{})
		var retained context.Context
		tk := newTask(func(ctx context.Context) error { retained = ctx; return nil })
		require.NoError(t, e.Submit(t.Context(), Key{}, tk))
		tk.result(t)
		synctest.Wait()
		<-retained.Done()
		assert.Equal(t, context.Canceled, retained.Err())
		assert.Equal(t, context.Canceled, context.Cause(retained))
	})
}

func TestOutcomeString(t *testing.T) {
	for o, want := range map[Outcome]string{
		0: "invalid", Completed: "completed", Cancelled: "cancelled",
		TimedOut: "timed out", Failed: "failed", 99: "invalid",
	} {
		assert.Equal(t, want, o.String())
	}
}

func TestGetters(t *testing.T) {
	e := newExecutor(t, Config{MaxConcurrency: 3, MaxQueue: 4, MaxSlots: 5})
	assert.Equal(t, 3, e.Cap())
	assert.Equal(t, 5, e.Slots().Cap())
	st := e.Stats()
	assert.Equal(t, Stats{MaxConcurrency: 3, MaxQueue: 4, MaxSlots: 5}, st)
}

// One timer serves every deadline: an earlier deadline submitted later
// fires first, and a finished job's deadline does not disturb the rest.
func TestDeadlinesShareOneTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{})
		start := time.Now()
		waitCtx := func(ctx context.Context) error { <-ctx.Done(); return nil }
		long, short, quick := newTask(waitCtx), newTask(waitCtx), newTask(nil)
		require.NoError(t, e.SubmitTimeout(t.Context(), Key{}, 100*time.Millisecond, long))
		require.NoError(t, e.SubmitTimeout(t.Context(), Key{}, 5*time.Millisecond, quick))
		require.NoError(t, e.SubmitTimeout(t.Context(), Key{}, 10*time.Millisecond, short))
		assert.Equal(t, Completed, quick.result(t).Outcome)

		assert.Equal(t, TimedOut, short.result(t).Outcome)
		assert.Equal(t, 10*time.Millisecond, time.Since(start))
		assert.Equal(t, TimedOut, long.result(t).Outcome)
		assert.Equal(t, 100*time.Millisecond, time.Since(start))

		// After an idle spell the timer is re-armed for new work.
		time.Sleep(time.Second)
		later := newTask(waitCtx)
		start = time.Now()
		require.NoError(t, e.SubmitTimeout(t.Context(), Key{}, 20*time.Millisecond, later))
		assert.Equal(t, TimedOut, later.result(t).Outcome)
		assert.Equal(t, 20*time.Millisecond, time.Since(start))
		assert.EqualValues(t, 3, e.Stats().TimedOut)
	})
}
