package pool

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestJobCtxLazy(t *testing.T) {
	c := &jobCtx{parent: context.Background()}
	assert.NoError(t, c.Err())
	assert.Nil(t, context.Cause(c))
	assert.False(t, c.ready.Load(), "Err and Cause create nothing")

	// Ending without a cause creates nothing either.
	c.end(ctxCancelled, nil, false)
	assert.False(t, c.ready.Load())
	assert.Equal(t, context.Canceled, c.Err())
	assert.Equal(t, context.Canceled, context.Cause(c))
	// Done created afterwards is already closed.
	<-c.Done()
	assert.Equal(t, context.Canceled, c.Err())
}

func TestJobCtxCause(t *testing.T) {
	reason := errors.New("reason")
	tests := []struct {
		name      string
		doneFirst bool // Done called before end
		state     uint32
		cause     error
		wantErr   error
	}{
		{"cancel", false, ctxCancelled, reason, context.Canceled},
		{"cancel after Done", true, ctxCancelled, reason, context.Canceled},
		{"expire", false, ctxExpired, ErrTimeout, context.DeadlineExceeded},
		{"expire after Done", true, ctxExpired, ErrTimeout, context.DeadlineExceeded},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &jobCtx{parent: context.Background()}
			var done <-chan struct{}
			if tc.doneFirst {
				done = c.Done()
			}
			c.end(tc.state, tc.cause, true)
			if done == nil {
				done = c.Done()
			}
			<-done
			assert.Equal(t, tc.wantErr, c.Err())
			assert.Equal(t, tc.cause, context.Cause(c))

			// A second end changes nothing.
			c.end(ctxCancelled, errors.New("later"), true)
			assert.Equal(t, tc.wantErr, c.Err())
			assert.Equal(t, tc.cause, context.Cause(c))
		})
	}
}

func TestJobCtxParent(t *testing.T) {
	type k struct{}
	errParent := errors.New("parent gone")
	parent, cancel := context.WithCancelCause(context.WithValue(context.Background(), k{}, 1))
	c := &jobCtx{parent: parent}
	assert.Equal(t, 1, c.Value(k{}))
	done := c.Done()
	assert.Equal(t, 1, c.Value(k{}), "values pass through the created context")

	cancel(errParent)
	<-done
	assert.Equal(t, context.Canceled, c.Err())
	assert.Equal(t, errParent, context.Cause(c))
	c.end(ctxExpired, ErrTimeout, true)
	assert.Equal(t, errParent, context.Cause(c), "the first end wins")

	// Without Done, Err still follows the parent.
	c2 := &jobCtx{parent: parent}
	assert.Equal(t, context.Canceled, c2.Err())
	assert.Equal(t, errParent, context.Cause(c2))
}

func TestJobCtxDeadline(t *testing.T) {
	epoch := time.Now()
	early, cancel := context.WithDeadline(context.Background(), epoch.Add(time.Second))
	defer cancel()

	tests := []struct {
		name   string
		parent context.Context
		own    time.Duration // offset from epoch
		want   time.Time
		wantOK bool
	}{
		{"none", context.Background(), 0, time.Time{}, false},
		{"own", context.Background(), time.Minute, epoch.Add(time.Minute), true},
		{"parent only", early, 0, epoch.Add(time.Second), true},
		{"parent earlier", early, time.Minute, epoch.Add(time.Second), true},
		{"own earlier", early, time.Millisecond, epoch.Add(time.Millisecond), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, ok := (&jobCtx{parent: tc.parent, epoch: &epoch, deadline: tc.own}).Deadline()
			assert.Equal(t, tc.wantOK, ok)
			assert.True(t, tc.want.Equal(d), "got %v, want %v", d, tc.want)
		})
	}
}
