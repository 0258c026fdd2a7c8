package gateway

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/client"
)

// forwardedCallAllocsBudget is what one tools/call forwarded to a stdio backend may
// allocate in the gateway's process, the caller's client and its HTTP exchange included
// (the backend is another process): 38 measured with a 2026-07-28 caller, 41 with an
// initialize-era one. About half are the caller's; the Gateway's own are the request, the
// relay and the call options, and its client's stdio round trip.
const forwardedCallAllocsBudget = 44

func TestAllocsForwardedCallBudget(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	_, gw := startGateway(t, Config{Backends: []Backend{stdioBackend("s")}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, era := range []client.Era{client.EraModern, client.EraLegacy} {
		c := connect(t, gw, era)
		args := map[string]string{"text": "hi"}
		call := func() {
			if _, err := c.CallTool(ctx, "echo", args); err != nil {
				t.Fatal(err)
			}
		}
		call()
		allocs := testing.AllocsPerRun(200, call)
		t.Logf("%v caller: %.1f allocations per forwarded call", era, allocs)
		assert.LessOrEqual(t, allocs, float64(forwardedCallAllocsBudget), "%v", era)
	}
	require.NoError(t, ctx.Err())
}
