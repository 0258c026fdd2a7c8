package pool

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder is a Task that records where and how it ran.
type recorder struct {
	run    func(ctx context.Context) error
	result chan Result
}

func (r *recorder) Run(ctx context.Context) error { return r.run(ctx) }
func (r *recorder) Done(res Result)               { r.result <- res }

func TestSubmitInline(t *testing.T) {
	e, err := New(Config{MaxConcurrency: 1, MaxQueue: 1})
	require.NoError(t, err)
	defer e.Close(context.Background())

	// A free worker: the job runs on the caller's goroutine, before SubmitInline returns.
	ran := false
	r := &recorder{run: func(context.Context) error { ran = true; return nil }, result: make(chan Result, 1)}
	inline, err := e.SubmitInline(context.Background(), Key{}, 0, r)
	require.NoError(t, err)
	assert.True(t, inline)
	assert.True(t, ran)
	assert.Equal(t, Completed, (<-r.result).Outcome)
	assert.Equal(t, uint64(1), e.Stats().Completed)

	// Busy: the job is queued and runs on a worker later.
	release := make(chan struct{})
	started := make(chan struct{})
	blocker := &recorder{run: func(context.Context) error { close(started); <-release; return nil }, result: make(chan Result, 1)}
	require.NoError(t, e.Submit(context.Background(), Key{}, blocker))
	<-started
	queued := &recorder{run: func(context.Context) error { return nil }, result: make(chan Result, 1)}
	inline, err = e.SubmitInline(context.Background(), Key{}, 0, queued)
	require.NoError(t, err)
	assert.False(t, inline)
	_, err = e.SubmitInline(context.Background(), Key{}, 0, &recorder{run: func(context.Context) error { return nil }, result: make(chan Result, 1)})
	assert.ErrorIs(t, err, ErrOverloaded)
	close(release)
	assert.Equal(t, Completed, (<-queued.result).Outcome)
	assert.Equal(t, Completed, (<-blocker.result).Outcome)
}

// An inline job has its deadline: its context ends and Done reports the timeout.
func TestSubmitInlineDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e, err := New(Config{MaxConcurrency: 1})
		require.NoError(t, err)
		defer e.Close(context.Background())
		r := &recorder{run: func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }, result: make(chan Result, 1)}
		start := time.Now()
		inline, err := e.SubmitInline(context.Background(), Key{}, time.Second, r)
		require.NoError(t, err)
		assert.True(t, inline)
		assert.Equal(t, time.Second, time.Since(start))
		assert.Equal(t, TimedOut, (<-r.result).Outcome)
	})
}
