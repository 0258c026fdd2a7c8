package memstore_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/memstore"
)

// TestGetAllocsBudget: a Get is one copy of the task: the struct, its five JSON values and
// its keys, nothing else.
func TestGetAllocsBudget(t *testing.T) {
	ctx := context.Background()
	s := memstore.New(memstore.Config{})
	task := &tasks.Task{ID: "t", Status: tasks.StatusInputRequired, TTL: time.Hour,
		Work:          tasks.Work{Version: 1, Tool: "x", Arguments: json.RawMessage(`{}`), Meta: json.RawMessage(`{}`)},
		InputRequests: json.RawMessage(`{}`), Responses: json.RawMessage(`{}`), Keys: []string{"a"}}
	require.NoError(t, s.Create(ctx, task, tasks.Limits{}))
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := s.Get(ctx, "t"); err != nil {
			t.Fatal(err)
		}
	})
	assert.LessOrEqual(t, allocs, 6.0)
}
