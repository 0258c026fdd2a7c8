package client

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks"
)

// taskGetAllocsBudget bounds one TaskHandle.Get of a running task in-process, the server's
// tasks/get on the memory store included (measured 40): the request and its headers, the
// decoded detail (taskWire, TaskDetail, the parsed times) and the server's read and answer.
const taskGetAllocsBudget = 40

func TestTaskGetAllocsBudget(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	c, _ := directTasks(t, tasksServer(t, tasks.Options{}), Config{})
	ctx := context.Background()
	_, h, err := c.CallToolTask(ctx, "slow_compute", []byte(`{"seconds":600}`))
	require.NoError(t, err)
	defer func() { require.NoError(t, h.Cancel(ctx)) }()
	allocs := testing.AllocsPerRun(200, func() {
		if _, err := h.Get(ctx); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%.1f allocations per TaskHandle.Get in-process", allocs)
	assert.LessOrEqual(t, allocs, float64(taskGetAllocsBudget))
}
