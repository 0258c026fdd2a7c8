package storetest

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks"
)

// RunCount checks a store's [tasks.Counter] on a store that open returns empty: tasks are
// counted by their status, and an expired task is no longer counted.
func RunCount(t *testing.T, open func(t *testing.T) tasks.Store) {
	s := open(t)
	c, ok := s.(tasks.Counter)
	if !ok {
		if u, isTimed := s.(timed); isTimed {
			c, ok = u.Store.(tasks.Counter)
		}
	}
	require.True(t, ok, "%T does not implement tasks.Counter", s)
	clk, _ := s.(Clock)

	n, err := c.CountByStatus(ctx(t))
	require.NoError(t, err)
	assert.Empty(t, n, "an empty store")

	want := map[tasks.Status]int{tasks.StatusWorking: 3, tasks.StatusInputRequired: 1, tasks.StatusCompleted: 2, tasks.StatusFailed: 1, tasks.StatusCancelled: 1}
	i := 0
	for status, count := range want {
		for range count {
			task := newTask("count-" + strconv.Itoa(i))
			task.Status = status
			i++
			require.NoError(t, s.Create(ctx(t), task, tasks.Limits{}))
		}
	}
	short := newTask("count-expiring")
	short.TTL = time.Minute
	require.NoError(t, s.Create(ctx(t), short, tasks.Limits{}))

	n, err = c.CountByStatus(ctx(t))
	require.NoError(t, err)
	assert.Equal(t, map[tasks.Status]int{tasks.StatusWorking: 4, tasks.StatusInputRequired: 1, tasks.StatusCompleted: 2, tasks.StatusFailed: 1, tasks.StatusCancelled: 1}, n)

	if clk != nil {
		clk.Advance(2 * time.Minute)
		n, err = c.CountByStatus(ctx(t))
		require.NoError(t, err)
		assert.Equal(t, want, n, "the expired task reads as unknown and is not counted")
	}
}
