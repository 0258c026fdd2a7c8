//go:build !race

package bench

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"
)

// TestLegacyEchoAllocsBudget: the initialize-era tools/call costs at most 10% more
// allocations than the 2026-07-28 one through the whole stack (issue 11's goal; compare
// measures the same across processes). Both counts include the client's own allocations,
// which are the same for both requests.
func TestLegacyEchoAllocsBudget(t *testing.T) {
	st := startFastmcp(t, 1)
	defer st.stop()
	allocs := func(o op) float64 {
		var req fasthttp.Request
		var resp fasthttp.Response
		o.request(&req)
		do(t, st.client, &req, &resp, o.want) // warm the connection and the pools
		return testing.AllocsPerRun(500, func() { do(t, st.client, &req, &resp, o.want) })
	}
	modern, legacy := allocs(opNamed(t, "echo")), allocs(opNamed(t, "echo-2025-11-25"))
	t.Logf("allocs per echo call: 2026-07-28 %.1f, 2025-11-25 %.1f", modern, legacy)
	assert.LessOrEqual(t, legacy, modern*1.10+0.5, "2025-11-25 %.1f allocs/call vs 2026-07-28 %.1f", legacy, modern)
}

func opNamed(t *testing.T, name string) op {
	for _, o := range ops {
		if o.name == name {
			return o
		}
	}
	require.FailNow(t, "no op "+name)
	return op{}
}
