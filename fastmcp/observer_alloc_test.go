//go:build !race

package fastmcp

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fastmcp-go/fastmcp/decode"
)

// TestAllocsObserverBudget pins the cost of an Observer on the hot paths: none beyond the
// budgets of TestAllocsDispatch (tools/call 2, tools/list and server/discover 0). Labelling
// the request (method, tool, version, error) allocates nothing.
func TestAllocsObserverBudget(t *testing.T) {
	o := &countingObserver{}
	s := newTestServer(t, &Config{Observer: o})
	AddTool(s, Tool{Name: "echo", Description: "Echo the text"}, func(_ context.Context, _ *Request, in benchEchoArgs) (ToolResult, error) {
		return ToolResult{Text: in.Text}, nil
	})
	budgets := map[string]float64{"tools-call": 2, "tools-list": 0, "discover": 0}
	for _, bm := range benchMessages {
		var m decode.Message
		msg := []byte(bm.msg)
		dst := make([]byte, 0, 1024)
		dst = dispatchOnce(t, s, &m, msg, dst)
		before := o.n
		allocs := testing.AllocsPerRun(100, func() {
			dst = dispatchOnce(t, s, &m, msg, dst)
		})
		assert.LessOrEqual(t, allocs, budgets[bm.method], bm.method)
		assert.Equal(t, 101, o.n-before, bm.method) // AllocsPerRun runs once more to warm up
	}
}
