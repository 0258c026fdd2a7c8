package pool

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// submitInline runs SubmitInline on a goroutine of the bubble, as a
// transport's request goroutine would, and reports its return.
func submitInline(e *Executor, ctx context.Context, key Key, timeout time.Duration, tk Task) <-chan error {
	ret := make(chan error, 1)
	go func() {
		inline, err := e.SubmitInline(ctx, key, timeout, tk)
		if err == nil && !inline {
			err = errors.New("not inline")
		}
		ret <- err
	}()
	return ret
}

// Cancel reaches an inline job through its key, like any running job.
func TestSubmitInlineCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{})
		key := Key{Owner: 3, ID: "inline"}
		reason := errors.New("client cancelled")
		var cause error
		tk := newTask(func(ctx context.Context) error {
			<-ctx.Done()
			cause = context.Cause(ctx)
			return ctx.Err()
		})
		ret := submitInline(e, t.Context(), key, time.Minute, tk)
		synctest.Wait()
		assert.ErrorIs(t, e.Submit(t.Context(), key, newTask(nil)), ErrDuplicateKey)
		assert.Equal(t, 1, e.Running())

		require.True(t, e.Cancel(key, reason))
		assert.Equal(t, Result{Outcome: Cancelled, Err: reason}, tk.result(t))
		require.NoError(t, <-ret)
		assert.Equal(t, reason, cause)
		assert.Equal(t, 0, e.Running())
		st := e.Stats()
		assert.EqualValues(t, 1, st.Cancelled)
		assert.Zero(t, st.Failed, "Run's error after the cancellation is not an outcome")
	})
}

// An inline job that ignores its context times out at its deadline anyway:
// Done is called then, while Run goes on and keeps its place.
func TestSubmitInlineDeadlineIgnored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{MaxConcurrency: 1, MaxQueue: NoQueue})
		start := time.Now()
		tk := newTask(func(context.Context) error { time.Sleep(time.Hour); return nil })
		ret := submitInline(e, t.Context(), Key{Owner: 1, ID: "slow"}, time.Second, tk)

		assert.Equal(t, Result{Outcome: TimedOut, Err: ErrTimeout}, tk.result(t))
		assert.Equal(t, time.Second, time.Since(start))
		assert.Equal(t, 1, e.Running())
		assert.ErrorIs(t, e.Submit(t.Context(), Key{Owner: 1, ID: "slow"}, newTask(nil)), ErrOverloaded,
			"the key is free, but Run still holds the worker")

		require.NoError(t, <-ret)
		assert.Equal(t, time.Hour, time.Since(start))
		synctest.Wait()
		assert.Equal(t, 0, e.Running())
		assert.EqualValues(t, 1, tk.count.Load(), "no second delivery")
		assert.EqualValues(t, 1, e.Stats().TimedOut)
	})
}

// A panic in an inline Run is recovered on the caller's goroutine.
func TestSubmitInlinePanic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{Logger: slog.New(slog.DiscardHandler)})
		tk := newTask(func(context.Context) error { panic("boom") })
		inline, err := e.SubmitInline(t.Context(), Key{Owner: 1, ID: "p"}, 0, tk)
		require.NoError(t, err)
		assert.True(t, inline)
		assert.Equal(t, Result{Outcome: Failed, Err: ErrPanicked}, tk.result(t))

		again := newTask(nil)
		inline, err = e.SubmitInline(t.Context(), Key{Owner: 1, ID: "p"}, 0, again)
		require.NoError(t, err, "the key was freed")
		assert.True(t, inline)
		assert.Equal(t, Completed, again.result(t).Outcome)
		st := e.Stats()
		assert.EqualValues(t, 1, st.Panicked)
		assert.EqualValues(t, 1, st.Failed)
		assert.Equal(t, 0, st.Running)
	})
}

// Close waits for an inline job, and cancels it when it gives up waiting.
func TestSubmitInlineClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e, err := New(Config{})
		require.NoError(t, err)
		g := newGate()
		var cause error
		tk := newTask(func(ctx context.Context) error { <-g; cause = context.Cause(ctx); return nil })
		ret := submitInline(e, t.Context(), Key{Owner: 1, ID: "c"}, 0, tk)
		synctest.Wait()

		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		assert.ErrorIs(t, e.Close(ctx), context.DeadlineExceeded)
		assert.Equal(t, Result{Outcome: Cancelled, Err: ErrClosed}, tk.result(t))
		g.open()
		require.NoError(t, <-ret)
		assert.Equal(t, ErrClosed, cause)
		require.NoError(t, e.Close(context.Background()))
		_, err = e.SubmitInline(t.Context(), Key{}, 0, newTask(nil))
		assert.ErrorIs(t, err, ErrClosed)
	})
}
