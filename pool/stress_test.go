package pool

import (
	"context"
	"errors"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConcurrentUse drives every path at once on real goroutines; run it
// with -race. Each admitted job must get exactly one outcome unless its
// submitter's context ended, every other job is a Releaser that must be
// released exactly once, after Run and Done, and the counters must add up.
func TestConcurrentUse(t *testing.T) {
	e := newExecutor(t, Config{MaxConcurrency: 4, MaxQueue: 8, DefaultTimeout: time.Millisecond})
	const submitters, perSubmitter = 8, 300
	errBoom := errors.New("boom")
	runs := []func(ctx context.Context) error{
		func(context.Context) error { return nil },
		func(context.Context) error { return errBoom },
		func(context.Context) error { panic("boom") },
		func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() },
		func(ctx context.Context) error { return ctx.Err() },
	}

	type admitted struct {
		tk     *task     // or
		lt     *lifeTask // a Releaser
		orphan bool      // the submitter's context may have ended
	}
	results := make([][]admitted, submitters)
	var wg sync.WaitGroup
	for g := range submitters {
		wg.Go(func() {
			// Every fourth submitter's context ends halfway (its connection
			// dies); the others outlive their jobs.
			dies := g%4 == 0
			owner, hangUp := context.Background(), func() {}
			if dies {
				var cancel context.CancelFunc
				owner, cancel = context.WithCancel(owner)
				defer cancel()
				hangUp = cancel
			}
			for i := range perSubmitter {
				var tk Task
				a := admitted{orphan: dies}
				if run := runs[(g+i)%len(runs)]; i%2 == 0 {
					a.tk = newTask(run)
					tk = a.tk
				} else {
					a.lt = newLifeTask(run)
					tk = a.lt
				}
				key := Key{Owner: uint64(g), ID: strconv.Itoa(i % 10)}
				if i%3 == 0 {
					key = Key{}
				}
				err := e.Submit(owner, key, tk)
				for retry := 0; errors.Is(err, ErrOverloaded) && retry < 100; retry++ {
					runtime.Gosched()
					err = e.Submit(owner, key, tk)
				}
				switch {
				case err == nil:
					results[g] = append(results[g], a)
				case errors.Is(err, ErrOverloaded), errors.Is(err, ErrDuplicateKey):
				case dies && errors.Is(err, context.Canceled):
				default:
					t.Errorf("Submit: %v", err)
				}
				if i%4 == 0 {
					e.Cancel(Key{Owner: uint64(g), ID: strconv.Itoa((i + 5) % 10)}, nil)
				}
				if dies && i == perSubmitter/2 {
					hangUp()
				}
			}
		})
	}
	wg.Wait()
	require.NoError(t, e.Close(context.Background()))

	st := e.Stats()
	assert.Equal(t, 0, st.Running)
	assert.Equal(t, 0, st.Queued)
	assert.Equal(t, st.Admitted, st.Completed+st.Failed+st.Cancelled+st.TimedOut)
	var n uint64
	for _, rs := range results {
		for _, a := range rs {
			n++
			var c int32
			if a.tk != nil {
				c = a.tk.count.Load()
			} else {
				select {
				case <-a.lt.released:
				default:
					t.Error("not released")
				}
				a.lt.mu.Lock()
				c = int32(len(a.lt.results))
				assert.Empty(t, a.lt.breaches)
				a.lt.mu.Unlock()
			}
			if a.orphan {
				assert.LessOrEqual(t, c, int32(1))
			} else {
				assert.Equal(t, int32(1), c)
			}
		}
	}
	assert.Equal(t, st.Admitted, n)
	t.Logf("%+v", st)
}
