package pool

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSlots(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{MaxSlots: 2})
		s := e.Slots()

		stream, closeStream := context.WithCancel(t.Context())
		_, err := s.Acquire(stream)
		require.NoError(t, err)
		release, err := s.Acquire(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 2, s.InUse())

		_, err = s.Acquire(t.Context())
		assert.ErrorIs(t, err, ErrNoSlot, "acquire fails at the limit")

		closeStream() // the holder's context ends
		synctest.Wait()
		assert.Equal(t, 1, s.InUse())
		again, err := s.Acquire(t.Context())
		require.NoError(t, err)

		release()
		release() // harmless
		assert.Equal(t, 1, s.InUse())
		again()
		assert.Equal(t, 0, s.InUse())

		st := e.Stats()
		assert.Equal(t, 0, st.SlotsInUse)
		assert.Equal(t, 2, st.MaxSlots)
	})
}

func TestSlotsReleaseBeforeContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExecutor(t, Config{MaxSlots: 1})
		ctx, cancel := context.WithCancel(t.Context())
		release, err := e.Slots().Acquire(ctx)
		require.NoError(t, err)
		release()
		cancel() // must not release a second time
		synctest.Wait()
		assert.Equal(t, 0, e.Slots().InUse())
		_, err = e.Slots().Acquire(t.Context())
		require.NoError(t, err)
		assert.Equal(t, 1, e.Slots().InUse())
	})
}

func TestSlotsEndedContext(t *testing.T) {
	e := newExecutor(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := e.Slots().Acquire(ctx)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 0, e.Slots().InUse())
}
