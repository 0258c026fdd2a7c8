package pool

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// New jobs wait on the fresh list and join the heap when the timer fires:
// either way they time out at their deadline, and Cancel and completion take
// them out of whichever holds them.
func TestDeadlinesFreshAndHeap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{})
		start := time.Now()
		waitCtx := func(ctx context.Context) error { <-ctx.Done(); return nil }
		submit := func(key Key, timeout time.Duration, tk *task) {
			t.Helper()
			require.NoError(t, e.SubmitTimeout(t.Context(), key, timeout, tk))
		}
		a, b, quick, d, heaped := newTask(waitCtx), newTask(waitCtx), newTask(nil), newTask(waitCtx), newTask(waitCtx)
		submit(Key{}, 10*time.Millisecond, a) // arms the timer
		submit(Key{}, 100*time.Millisecond, b)
		submit(Key{}, 50*time.Millisecond, quick) // ends while fresh
		submit(Key{ID: "heaped"}, time.Hour, heaped)
		submit(Key{}, 5*time.Millisecond, d) // earlier: re-arms the timer
		assert.Equal(t, Completed, quick.result(t).Outcome)

		assert.Equal(t, TimedOut, d.result(t).Outcome)
		assert.Equal(t, 5*time.Millisecond, time.Since(start))
		synctest.Wait()
		e.mu.Lock()
		assert.Len(t, e.deadlines, 3, "a, b and heaped moved to the heap")
		assert.Equal(t, freshList{}, e.fresh)
		e.mu.Unlock()

		freshTk := newTask(waitCtx)
		submit(Key{ID: "fresh"}, time.Hour, freshTk)
		require.True(t, e.Cancel(Key{ID: "fresh"}, nil))
		require.True(t, e.Cancel(Key{ID: "heaped"}, nil))
		assert.Equal(t, Cancelled, freshTk.result(t).Outcome)
		assert.Equal(t, Cancelled, heaped.result(t).Outcome)

		assert.Equal(t, TimedOut, a.result(t).Outcome)
		assert.Equal(t, 10*time.Millisecond, time.Since(start))
		assert.Equal(t, TimedOut, b.result(t).Outcome)
		assert.Equal(t, 100*time.Millisecond, time.Since(start))
		synctest.Wait()
		e.mu.Lock()
		defer e.mu.Unlock()
		assert.Empty(t, e.deadlines)
		assert.Equal(t, freshList{}, e.fresh)
		for _, j := range e.recs[1:] {
			assert.False(t, j.fresh)
			assert.Equal(t, -1, j.heapIndex)
		}
	})
}
