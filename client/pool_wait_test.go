package client

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// waitPool is a pool of size slots, all taken, for the tests of its wait queue.
func waitPool(size int) *pool {
	return &pool{size: size, inUse: size, idleTO: time.Minute, maxReqs: 100}
}

// take waits for a slot as acquire does and reports the outcome on the channel.
func take(p *pool, ctx context.Context, deadline time.Time) <-chan error {
	done := make(chan error, 1)
	go func() {
		p.mu.Lock()
		err := p.wait(ctx, deadline)
		if err == nil {
			p.mu.Unlock()
		}
		done <- err
	}()
	return done
}

// A waiter no slot reaches in time fails at its deadline by the pool's one timer, with
// ErrPoolTimeout and context.DeadlineExceeded, and leaves the queue.
func TestPoolWaitTimesOutAtDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := waitPool(1)
		start := time.Now()
		late := take(p, context.Background(), start.Add(2*time.Second))
		early := take(p, context.Background(), start.Add(time.Second))
		synctest.Wait()
		err := <-early
		assert.ErrorIs(t, err, ErrPoolTimeout)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, time.Second, time.Since(start), "the earlier deadline, though it queued second")
		err = <-late
		assert.ErrorIs(t, err, ErrPoolTimeout)
		assert.Equal(t, 2*time.Second, time.Since(start))
		assert.Zero(t, p.waiters.n)
		assert.Equal(t, 1, p.inUse, "no slot was handed out")
		_, err = p.acquire(context.Background(), time.Now())
		assert.ErrorIs(t, err, ErrPoolTimeout, "a deadline already past fails at once")
	})
}

// Freed slots go to the waiters in arrival order; one that cancels leaves the queue and
// takes no slot.
func TestPoolWaitFIFOAndCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := waitPool(1)
		deadline := time.Now().Add(time.Minute)
		first := take(p, context.Background(), deadline)
		synctest.Wait()
		ctx, cancel := context.WithCancel(context.Background())
		second := take(p, ctx, deadline)
		synctest.Wait()
		third := take(p, context.Background(), deadline)
		synctest.Wait()
		require.Equal(t, 3, p.waiters.n)

		cancel()
		err := <-second
		assert.ErrorIs(t, err, context.Canceled)
		assert.NotErrorIs(t, err, ErrPoolTimeout)
		assert.Equal(t, 2, p.waiters.n)

		p.freeSlot()
		require.NoError(t, <-first)
		synctest.Wait()
		select {
		case <-third:
			t.Fatal("the third waiter got a slot while only one was freed")
		default:
		}
		p.freeSlot()
		require.NoError(t, <-third)
		assert.Zero(t, p.waiters.n)
		assert.Equal(t, 1, p.inUse, "the slot passed from holder to holder")
		p.freeSlot()
		assert.Zero(t, p.inUse)
	})
}

// A waiter whose context ends as a slot is handed to it gives the slot back: however the
// race goes, no slot is lost and none is counted twice.
func TestPoolWaitCancelRacingHandoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for range 200 {
			p := waitPool(1)
			ctx, cancel := context.WithCancel(context.Background())
			done := take(p, ctx, time.Now().Add(time.Minute))
			synctest.Wait()
			go cancel()
			go p.freeSlot()
			err := <-done
			synctest.Wait()
			assert.Zero(t, p.waiters.n)
			if err == nil {
				assert.Equal(t, 1, p.inUse, "the waiter holds the slot")
			} else {
				assert.ErrorIs(t, err, context.Canceled)
				assert.Zero(t, p.inUse, "the slot went back")
			}
		}
	})
}
