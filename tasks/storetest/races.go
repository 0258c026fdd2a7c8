package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks"
)

var raceCases = []contractCase{
	{"RaceCompletionAgainstCancel", testCompletionVsCancel},
	{"RaceTwoUpdatesAtOnce", testTwoUpdates},
	{"RaceLeaseExpiryDuringSlowRenew", testSlowRenew},
}

// both runs a and b at the same moment and returns their errors.
func both(a, b func() error) (errA, errB error) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	wg.Go(func() { <-start; errA = a() })
	wg.Go(func() { <-start; errB = b() })
	close(start)
	wg.Wait()
	return errA, errB
}

// testCompletionVsCancel: the worker's completion and a client's cancellation, both written
// from the same revision: exactly one wins, the other gets ErrConflict, and the stored task
// is the winner's.
func testCompletionVsCancel(t *testing.T, s tasks.Store, _ Clock) {
	for i := range 10 {
		id := fmt.Sprintf("race-%d", i)
		create(t, s, id)
		worker := claim(t, s, "w")
		client := get(t, s, id)
		worker.Status, worker.Result = tasks.StatusCompleted, json.RawMessage(`{"content":[]}`)
		client.Status, client.CancelRequested = tasks.StatusCancelled, true
		errW, errC := both(
			func() error { return s.Put(ctx(t), worker, worker.LeaseGen) },
			func() error { return s.Put(ctx(t), client, 0) })
		got := get(t, s, id)
		switch {
		case errW == nil:
			require.ErrorIs(t, errC, tasks.ErrConflict)
			assert.Equal(t, tasks.StatusCompleted, got.Status)
		case errC == nil:
			require.ErrorIs(t, errW, tasks.ErrConflict)
			assert.Equal(t, tasks.StatusCancelled, got.Status)
		default:
			t.Fatalf("neither write won: %v, %v", errW, errC)
		}
	}
}

// testTwoUpdates: two tasks/update at once on one input_required task: one Put wins, the
// other is refused, reads the task again and merges; no answer is lost.
func testTwoUpdates(t *testing.T, s tasks.Store, _ Clock) {
	create(t, s, "ask", func(task *tasks.Task) {
		task.Status = tasks.StatusInputRequired
		task.Keys = []string{"a", "b"}
		task.Responses = json.RawMessage(`{}`)
	})
	update := func(key string) func() error {
		return func() error {
			for {
				cur, err := s.Get(ctx(t), "ask")
				if err != nil {
					return err
				}
				answers := map[string]json.RawMessage{}
				if err := json.Unmarshal(cur.Responses, &answers); err != nil {
					return err
				}
				answers[key] = json.RawMessage(`{"action":"accept"}`)
				if cur.Responses, err = json.Marshal(answers); err != nil {
					return err
				}
				if err := s.Put(ctx(t), cur, 0); !errors.Is(err, tasks.ErrConflict) {
					return err
				}
			}
		}
	}
	errA, errB := both(update("a"), update("b"))
	require.NoError(t, errA)
	require.NoError(t, errB)
	got := get(t, s, "ask")
	answers := map[string]json.RawMessage{}
	require.NoError(t, json.Unmarshal(got.Responses, &answers))
	assert.ElementsMatch(t, []string{"a", "b"}, slices.Collect(maps.Keys(answers)))
	assert.Equal(t, int64(3), got.Revision, "one revision per accepted write")
}

// testSlowRenew: a worker's renewal arrives after its lease ran out, at the moment another
// worker claims the task: whatever the order, the renewal fails and the new worker holds
// the task; the old worker's writes are fenced out.
func testSlowRenew(t *testing.T, s tasks.Store, clk Clock) {
	create(t, s, "slow")
	old := claim(t, s, "old")
	clk.Advance(lease)
	var claimed *tasks.Task
	errRenew, errClaim := both(
		func() error { _, err := s.Renew(ctx(t), "slow", old.LeaseGen, lease); return err },
		func() (err error) { claimed, err = s.ClaimNext(ctx(t), "new", lease); return err })
	require.ErrorIs(t, errRenew, tasks.ErrLeaseLost)
	require.NoError(t, errClaim)
	require.NotNil(t, claimed)
	assert.Equal(t, old.LeaseGen+1, claimed.LeaseGen)
	old.Status = tasks.StatusCompleted
	require.ErrorIs(t, s.Put(ctx(t), old, old.LeaseGen), tasks.ErrLeaseLost)
	claimed.Status = tasks.StatusCompleted
	require.NoError(t, s.Put(ctx(t), claimed, claimed.LeaseGen))
}
