package client

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
)

// directCallToolAllocsBudget bounds one CallTool over Direct, the server's work included
// (the echo tool on the fixture server; measured 22): the client core's path, the server's
// Dispatch of echo, and Direct's own request-timeout context and sink. It leaves no room for
// a regression in any of them.
const directCallToolAllocsBudget = 22

func TestDirectCallToolAllocsBudget(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	c := directClient(t, Config{})
	args := map[string]string{"text": "hi"}
	allocs := testing.AllocsPerRun(200, func() {
		if _, err := c.CallTool(context.Background(), "echo", args); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%.1f allocations per CallTool over Direct", allocs)
	assert.LessOrEqual(t, allocs, float64(directCallToolAllocsBudget))
}
