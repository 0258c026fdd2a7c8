package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks"
)

var capacityCases = []contractCase{
	{"MaxTasksAtomicUnderConcurrency", testMaxTasksConcurrent},
	{"MaxActivePerScopeAtomicUnderConcurrency", testMaxActiveConcurrent},
	{"DefaultLimits", testDefaultLimits},
}

// createAll creates n tasks with ids prefix-i at once, each from its own goroutine, and
// returns how many were stored and the refusals.
func createAll(t *testing.T, s tasks.Store, prefix, scope string, n int, lim tasks.Limits) (int, []error) {
	t.Helper()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		stored   int
		refusals []error
		start    = make(chan struct{})
	)
	for i := range n {
		wg.Go(func() {
			task := newTask(fmt.Sprintf("%s-%d", prefix, i))
			task.Scope = scope
			<-start
			err := s.Create(ctx(t), task, lim)
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				stored++
			} else {
				refusals = append(refusals, err)
			}
		})
	}
	close(start)
	wg.Wait()
	return stored, refusals
}

func requireCapacity(t *testing.T, limit string, errs ...error) {
	t.Helper()
	for _, err := range errs {
		var capErr *tasks.CapacityError
		require.ErrorAs(t, err, &capErr)
		assert.Equal(t, limit, capErr.Limit)
	}
}

// testMaxTasksConcurrent: of 16 concurrent creates under MaxTasks 5, exactly 5 are stored;
// terminal tasks count until reaped.
func testMaxTasksConcurrent(t *testing.T, s tasks.Store, _ Clock) {
	lim := tasks.Limits{MaxTasks: 5, MaxActivePerScope: 100}
	stored, refusals := createAll(t, s, "t", "alice", 16, lim)
	assert.Equal(t, 5, stored)
	require.Len(t, refusals, 11)
	requireCapacity(t, "MaxTasks", refusals...)

	claimed := claim(t, s, "w")
	claimed.Status = tasks.StatusCompleted
	require.NoError(t, s.Put(ctx(t), claimed, claimed.LeaseGen))
	requireCapacity(t, "MaxTasks", s.Create(ctx(t), newTask("more"), lim))
}

// testMaxActivePerScopeConcurrent: of 12 concurrent creates of one scope under
// MaxActivePerScope 3, exactly 3 are stored; another scope is not affected; a task that
// ends frees its place.
func testMaxActiveConcurrent(t *testing.T, s tasks.Store, _ Clock) {
	lim := tasks.Limits{MaxTasks: 100, MaxActivePerScope: 3}
	stored, refusals := createAll(t, s, "a", "alice", 12, lim)
	assert.Equal(t, 3, stored)
	require.Len(t, refusals, 9)
	requireCapacity(t, "MaxActivePerScope", refusals...)

	bob := newTask("bob")
	bob.Scope = "bob"
	require.NoError(t, s.Create(ctx(t), bob, lim))

	claimed := claim(t, s, "w")
	require.Equal(t, "alice", claimed.Scope)
	claimed.Status = tasks.StatusFailed
	require.NoError(t, s.Put(ctx(t), claimed, claimed.LeaseGen))
	require.NoError(t, s.Create(ctx(t), newTask("alice-again"), lim))
	requireCapacity(t, "MaxActivePerScope", s.Create(ctx(t), newTask("alice-once-more"), lim))
}

// testDefaultLimits: zero Limits mean DefaultMaxActivePerScope (the cheaper default to reach).
func testDefaultLimits(t *testing.T, s tasks.Store, _ Clock) {
	for i := range tasks.DefaultMaxActivePerScope {
		require.NoError(t, s.Create(ctx(t), newTask(fmt.Sprintf("d-%d", i)), tasks.Limits{}))
	}
	err := s.Create(ctx(t), newTask("one-too-many"), tasks.Limits{})
	requireCapacity(t, "MaxActivePerScope", err)
	require.False(t, errors.Is(err, tasks.ErrExists))
}
