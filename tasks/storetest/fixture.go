package storetest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks"
)

// lease is the lease the suite's workers take.
const lease = 30 * time.Second

// newTask returns a working task of scope "alice" living an hour, with a work descriptor.
func newTask(id string) *tasks.Task {
	return &tasks.Task{
		ID:            id,
		Scope:         "alice",
		Status:        tasks.StatusWorking,
		StatusMessage: "Task accepted",
		TTL:           time.Hour,
		PollInterval:  250 * time.Millisecond,
		Work: tasks.Work{
			Version:   1,
			Tool:      "slow_compute",
			Arguments: json.RawMessage(`{"seconds":3}`),
			Meta:      json.RawMessage(`{"io.modelcontextprotocol/clientInfo":{"name":"t"}}`),
		},
	}
}

// create stores a new task with id and returns it as stored.
func create(t *testing.T, s tasks.Store, id string, edit ...func(*tasks.Task)) *tasks.Task {
	t.Helper()
	task := newTask(id)
	for _, e := range edit {
		e(task)
	}
	require.NoError(t, s.Create(ctx(t), task, tasks.Limits{}))
	return task
}

// get returns the stored task with id, which must exist.
func get(t *testing.T, s tasks.Store, id string) *tasks.Task {
	t.Helper()
	got, err := s.Get(ctx(t), id)
	require.NoError(t, err)
	return got
}

// claim claims the next task for worker, which must exist.
func claim(t *testing.T, s tasks.Store, worker string) *tasks.Task {
	t.Helper()
	got, err := s.ClaimNext(ctx(t), worker, lease)
	require.NoError(t, err)
	require.NotNil(t, got, "a runnable task")
	return got
}

// requireSame fails unless got holds what want holds: times equal at microsecond precision,
// an empty JSON value the same as none.
func requireSame(t *testing.T, want, got *tasks.Task) {
	t.Helper()
	require.Equal(t, normal(want), normal(got))
}

func normal(t *tasks.Task) tasks.Task {
	n := *t
	for _, tm := range []*time.Time{&n.CreatedAt, &n.UpdatedAt, &n.NotBefore, &n.LeaseUntil} {
		if tm.IsZero() {
			*tm = time.Time{}
		} else {
			*tm = tm.UTC().Truncate(time.Microsecond)
		}
	}
	for _, raw := range []*json.RawMessage{&n.Work.Arguments, &n.Work.Meta, &n.InputRequests, &n.Responses, &n.Result, &n.Error} {
		if len(*raw) == 0 {
			*raw = nil
		}
	}
	if len(n.Keys) == 0 {
		n.Keys = nil
	}
	return n
}

// assertNear checks that a store-set time is the store's clock (a database's clock moves
// during the call).
func assertNear(t *testing.T, want, got time.Time) {
	t.Helper()
	assert.WithinDuration(t, want, got, 5*time.Second)
}
