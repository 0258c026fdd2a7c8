package memstore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/memstore"
)

// TestDefaultMaxTasks: zero Limits hold DefaultMaxTasks tasks, spread over scopes so that no
// scope reaches its own limit, and refuse one more.
func TestDefaultMaxTasks(t *testing.T) {
	ctx := context.Background()
	s := memstore.New(memstore.Config{})
	for i := range tasks.DefaultMaxTasks {
		task := &tasks.Task{ID: fmt.Sprint(i), Scope: fmt.Sprint(i % 200), Status: tasks.StatusWorking}
		require.NoError(t, s.Create(ctx, task, tasks.Limits{}))
	}
	var capErr *tasks.CapacityError
	require.ErrorAs(t, s.Create(ctx, &tasks.Task{ID: "one more", Scope: "new", Status: tasks.StatusWorking}, tasks.Limits{}), &capErr)
	assert.Equal(t, "MaxTasks", capErr.Limit)
}
