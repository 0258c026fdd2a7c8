package inprocess_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fastmcp-go/fastmcp/client"
)

// callToolAllocsBudget bounds one CallTool in-process, the server's work included (the echo
// tool on the fixture server; measured 22): the client core's path, the server's Dispatch of
// echo, and the transport's own request-timeout context and sink. It leaves no room for a
// regression in any of them.
const callToolAllocsBudget = 22

func TestCallToolAllocsBudget(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	c := connect(t, client.Config{})
	args := map[string]string{"text": "hi"}
	allocs := testing.AllocsPerRun(200, func() {
		if _, err := c.CallTool(context.Background(), "echo", args); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%.1f allocations per CallTool in-process", allocs)
	assert.LessOrEqual(t, allocs, float64(callToolAllocsBudget))
}
