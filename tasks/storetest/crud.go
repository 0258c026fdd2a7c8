package storetest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks"
)

var crudCases = []contractCase{
	{"CreateThenGet", testCreateThenGet},
	{"CreateFillsTimesAndClearsLease", testCreateFills},
	{"CreateDuplicate", testCreateDuplicate},
	{"GetUnknown", testGetUnknown},
	{"GetReturnsCopy", testGetReturnsCopy},
	{"PutCompareAndSet", testPutCAS},
	{"PutKeepsLeaseScopeCreatedAt", testPutKeeps},
	{"PutUnknown", testPutUnknown},
	{"TerminalImmutable", testTerminalImmutable},
}

// testCreateThenGet: every field survives the round trip.
func testCreateThenGet(t *testing.T, s tasks.Store, clk Clock) {
	now := clk.Now().Truncate(time.Microsecond)
	want := newTask("every-field")
	want.CreatedAt = now.Add(-time.Second)
	want.UpdatedAt = now
	want.Status = tasks.StatusInputRequired
	want.InputRequests = json.RawMessage(`{"confirm":{"method":"elicitation/create","params":{"message":"Sure?"}}}`)
	want.Responses = json.RawMessage(`{"name":{"action":"accept","content":{"name":"ada"}}}`)
	want.Keys = []string{"name", "confirm"}
	want.Result = json.RawMessage(`{"content":[]}`)
	want.Error = json.RawMessage(`{"code":-32603,"message":"x"}`)
	want.CancelRequested = true
	want.Attempt = 2
	want.NotBefore = now.Add(time.Minute)
	require.NoError(t, s.Create(ctx(t), want, tasks.Limits{}))
	assert.Equal(t, int64(1), want.Revision)
	requireSame(t, want, get(t, s, "every-field"))
}

func testCreateFills(t *testing.T, s tasks.Store, clk Clock) {
	task := newTask("fills")
	task.LeaseOwner, task.LeaseGen, task.LeaseUntil = "w", 7, clk.Now().Add(time.Hour)
	task.Revision = 9
	require.NoError(t, s.Create(ctx(t), task, tasks.Limits{}))
	assertNear(t, clk.Now(), task.CreatedAt)
	assert.Equal(t, task.CreatedAt, task.UpdatedAt)
	assert.Equal(t, int64(1), task.Revision)
	got := get(t, s, "fills")
	requireSame(t, task, got)
	assert.Empty(t, got.LeaseOwner)
	assert.Zero(t, got.LeaseGen)
	assert.True(t, got.LeaseUntil.IsZero())
}

func testCreateDuplicate(t *testing.T, s tasks.Store, _ Clock) {
	first := create(t, s, "dup")
	second := newTask("dup")
	second.Scope = "mallory"
	require.ErrorIs(t, s.Create(ctx(t), second, tasks.Limits{}), tasks.ErrExists)
	requireSame(t, first, get(t, s, "dup"))
}

func testGetUnknown(t *testing.T, s tasks.Store, _ Clock) {
	_, err := s.Get(ctx(t), "nope")
	require.ErrorIs(t, err, tasks.ErrNotFound)
}

func testGetReturnsCopy(t *testing.T, s tasks.Store, _ Clock) {
	create(t, s, "copy", func(task *tasks.Task) { task.Keys = []string{"a"} })
	got := get(t, s, "copy")
	got.Keys[0] = "changed"
	got.Work.Arguments[0] = '['
	again := get(t, s, "copy")
	assert.Equal(t, []string{"a"}, again.Keys)
	assert.JSONEq(t, `{"seconds":3}`, string(again.Work.Arguments))
}

// testPutCAS: a Put on the stored revision wins and moves it on; one on an older revision
// is refused and changes nothing.
func testPutCAS(t *testing.T, s tasks.Store, _ Clock) {
	create(t, s, "cas")
	a, b := get(t, s, "cas"), get(t, s, "cas")
	a.StatusMessage = "first"
	require.NoError(t, s.Put(ctx(t), a, 0))
	assert.Equal(t, int64(2), a.Revision)
	b.StatusMessage = "second"
	require.ErrorIs(t, s.Put(ctx(t), b, 0), tasks.ErrConflict)
	assert.Equal(t, int64(1), b.Revision, "a refused Put leaves the caller's revision")
	got := get(t, s, "cas")
	assert.Equal(t, "first", got.StatusMessage)
	assert.Equal(t, int64(2), got.Revision)
	requireSame(t, a, got)
}

func testPutKeeps(t *testing.T, s tasks.Store, _ Clock) {
	create(t, s, "keeps")
	claimed := claim(t, s, "w1")
	edit := *claimed
	edit.LeaseOwner, edit.LeaseGen, edit.LeaseUntil = "thief", 99, time.Time{}
	edit.Scope, edit.CreatedAt = "mallory", claimed.CreatedAt.Add(-time.Hour)
	edit.StatusMessage = "edited"
	edit.UpdatedAt = time.Time{}
	require.NoError(t, s.Put(ctx(t), &edit, 0))
	got := get(t, s, "keeps")
	assert.Equal(t, "edited", got.StatusMessage)
	assert.True(t, claimed.UpdatedAt.Truncate(time.Microsecond).Equal(got.UpdatedAt.Truncate(time.Microsecond)), "a zero UpdatedAt keeps the stored one")
	assert.Equal(t, "w1", got.LeaseOwner)
	assert.Equal(t, claimed.LeaseGen, got.LeaseGen)
	assert.True(t, claimed.LeaseUntil.Truncate(time.Microsecond).Equal(got.LeaseUntil.Truncate(time.Microsecond)))
	assert.Equal(t, "alice", got.Scope)
	assert.True(t, claimed.CreatedAt.Truncate(time.Microsecond).Equal(got.CreatedAt.Truncate(time.Microsecond)))
}

func testPutUnknown(t *testing.T, s tasks.Store, _ Clock) {
	task := newTask("ghost")
	task.Revision = 1
	require.ErrorIs(t, s.Put(ctx(t), task, 0), tasks.ErrNotFound)
}

// testTerminalImmutable: once completed, failed or cancelled, no Put changes a task, with
// the right revision or a worker's fence.
func testTerminalImmutable(t *testing.T, s tasks.Store, _ Clock) {
	for _, final := range []tasks.Status{tasks.StatusCompleted, tasks.StatusFailed, tasks.StatusCancelled} {
		id := "final-" + string(final)
		create(t, s, id)
		claimed := claim(t, s, "w")
		claimed.Status = final
		require.NoError(t, s.Put(ctx(t), claimed, claimed.LeaseGen))
		again := *claimed
		again.Status, again.StatusMessage = tasks.StatusWorking, "revived"
		require.ErrorIs(t, s.Put(ctx(t), &again, 0), tasks.ErrConflict)
		require.ErrorIs(t, s.Put(ctx(t), &again, claimed.LeaseGen), tasks.ErrConflict)
		got := get(t, s, id)
		assert.Equal(t, final, got.Status)
		assert.Equal(t, claimed.Revision, got.Revision)
	}
}
