package pool

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Close that gives up finds the running jobs among all records: it cancels
// the undecided ones and leaves alone those already decided and the records
// on the free list.
func TestCloseGivesUpFindsRunningJobs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e, err := New(Config{MaxConcurrency: 4})
		require.NoError(t, err)
		g := newGate()
		finished := newTask(nil)
		require.NoError(t, e.Submit(t.Context(), Key{}, finished))
		assert.Equal(t, Completed, finished.result(t).Outcome)
		synctest.Wait() // its record is free again

		a, b, cancelled := newTask(blockOn(g)), newTask(blockOn(g)), newTask(blockOn(g))
		require.NoError(t, e.Submit(t.Context(), Key{}, a))
		require.NoError(t, e.Submit(t.Context(), Key{ID: "c"}, cancelled))
		require.NoError(t, e.Submit(t.Context(), Key{}, b))
		synctest.Wait()
		require.True(t, e.Cancel(Key{ID: "c"}, nil))
		assert.Equal(t, Cancelled, cancelled.result(t).Outcome)

		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		assert.ErrorIs(t, e.Close(ctx), context.DeadlineExceeded)
		assert.Equal(t, Result{Outcome: Cancelled, Err: ErrClosed}, a.result(t))
		assert.Equal(t, Result{Outcome: Cancelled, Err: ErrClosed}, b.result(t))
		assert.Equal(t, 3, e.Running())

		g.open()
		require.NoError(t, e.Close(context.Background()))
		assert.Equal(t, 0, e.Running())
		assert.EqualValues(t, 1, finished.count.Load())
		assert.EqualValues(t, 1, cancelled.count.Load())
		assert.EqualValues(t, 3, e.Stats().Cancelled)
	})
}
