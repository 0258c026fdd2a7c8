//go:build !race

package fastmcp

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fastmcp-go/fastmcp/decode"
)

// TestAllocsExtensionBudget: an extension that takes over no call leaves tools/call at the
// budget of TestAllocsDispatch (2), and server/discover and tools/list at none.
func TestAllocsExtensionBudget(t *testing.T) {
	s := newBenchServer(t)
	s.AddExtension(Extension{ID: "example.com/toy",
		ToolCall: ToolCallHook{
			Take: func(context.Context, *Request, string) (bool, error) { return false, nil },
			Start: func(context.Context, *Request, string, json.RawMessage) (json.RawMessage, error) {
				panic("not taken")
			},
		}})
	budgets := map[string]float64{"tools-call": 2, "tools-list": 0, "discover": 0}
	for _, bm := range benchMessages {
		var m decode.Message
		msg := []byte(bm.msg)
		dst := make([]byte, 0, 1024)
		dst = dispatchOnce(t, s, &m, msg, dst)
		allocs := testing.AllocsPerRun(100, func() {
			dst = dispatchOnce(t, s, &m, msg, dst)
		})
		assert.LessOrEqual(t, allocs, budgets[bm.method], bm.method)
	}
}
