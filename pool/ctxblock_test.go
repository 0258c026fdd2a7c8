package pool

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Contexts share blocks but are never reused: each retained context stays
// cancelled and keeps its own submitter's values.
func TestCtxBlockContextsAreNotReused(t *testing.T) {
	e := newExecutor(t, Config{MaxConcurrency: 1})
	type ctxKey struct{}
	const jobs = 3*ctxBlockLen + 1
	retained := make([]context.Context, jobs)
	for i := range jobs {
		parent := context.WithValue(context.Background(), ctxKey{}, i)
		r := &recorder{result: make(chan Result, 1), run: func(ctx context.Context) error {
			require.NoError(t, ctx.Err())
			retained[i] = ctx
			return nil
		}}
		inline, err := e.SubmitInline(parent, Key{Owner: 1, ID: "k"}, 0, r)
		require.NoError(t, err)
		require.True(t, inline)
		assert.Equal(t, Completed, (<-r.result).Outcome)
	}
	for i, ctx := range retained {
		assert.Equal(t, context.Canceled, ctx.Err())
		assert.Equal(t, i, ctx.Value(ctxKey{}))
		<-ctx.Done()
		for _, other := range retained[:i] {
			assert.NotSame(t, other, ctx)
		}
	}
}

// A refused submission gives its context back untouched for the next job.
func TestCtxBlockRefusedSubmit(t *testing.T) {
	e := newExecutor(t, Config{MaxConcurrency: 1, MaxQueue: NoQueue})
	g := newGate()
	defer g.open()
	require.NoError(t, e.Submit(context.Background(), Key{ID: "busy"}, newTask(blockOn(g))))
	e.mu.Lock()
	block, next := e.ctxBlock, e.ctxNext
	e.mu.Unlock()

	assert.ErrorIs(t, e.Submit(context.Background(), Key{ID: "busy"}, newTask(nil)), ErrDuplicateKey)
	assert.ErrorIs(t, e.Submit(context.Background(), Key{}, newTask(nil)), ErrOverloaded)

	e.mu.Lock()
	defer e.mu.Unlock()
	assert.Same(t, block, e.ctxBlock)
	assert.Equal(t, next, e.ctxNext)
	if next < ctxBlockLen {
		assert.Nil(t, block[next].parent, "the slot was cleared")
	}
}
