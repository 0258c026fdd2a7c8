package pool

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Nothing takes a lock: two first Dones, an end without a cause and one
// with a cause may race; cc is created once and cancelled, and the first end
// decides the error and the cause.
func TestJobCtxEndRaces(t *testing.T) {
	reason := errors.New("reason")
	for range 500 {
		c := &jobCtx{parent: context.Background()}
		var done, done2 <-chan struct{}
		var wg sync.WaitGroup
		wg.Go(func() { done = c.Done() })
		wg.Go(func() { done2 = c.Done() })
		wg.Go(func() { c.end(ctxCancelled, nil, false) })
		wg.Go(func() { c.end(ctxExpired, reason, true) })
		wg.Wait()
		assert.Equal(t, done, done2, "one cc")
		<-done // the channel must close whoever came first
		switch context.Cause(c) {
		case reason:
			assert.Equal(t, context.DeadlineExceeded, c.Err())
		case context.Canceled:
			assert.Equal(t, context.Canceled, c.Err())
		default:
			t.Fatalf("cause %v", context.Cause(c))
		}
	}
}

// A Done created after an end without a cause is closed; so is one created
// before it.
func TestJobCtxEndWithoutLock(t *testing.T) {
	before := &jobCtx{parent: context.Background()}
	done := before.Done()
	before.end(ctxCancelled, nil, false)
	<-done
	assert.Equal(t, context.Canceled, before.Err())

	after := &jobCtx{parent: context.Background()}
	after.end(ctxCancelled, nil, false)
	after.end(ctxExpired, ErrTimeout, true)
	<-after.Done()
	assert.Equal(t, context.Canceled, after.Err(), "the first end wins")
	assert.Equal(t, context.Canceled, context.Cause(after))
}
