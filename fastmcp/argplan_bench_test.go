package fastmcp

import (
	"context"
	"testing"

	"github.com/fastmcp-go/fastmcp/decode"
)

// searchArgs is a typical flat tool input: a string, an integer and a bool.
type searchArgs struct {
	Query string `json:"query"`
	Limit int    `json:"limit"`
	Exact bool   `json:"exact"`
}

// typedArgsCalls are the tools/call messages BenchmarkTypedArgs serves.
var typedArgsCalls = []struct{ name, msg string }{
	{"text", `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{` + meta + `,"name":"echo","arguments":{"text":"hello, world"}}}`},
	{"search", `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{` + meta + `,"name":"search","arguments":{"query":"fasthttp keep-alive","limit":20,"exact":false}}}`},
}

// newTypedArgsServer registers the tools of typedArgsCalls, with argument plans unless
// general is set.
func newTypedArgsServer(tb testing.TB, general bool) *Server {
	tb.Helper()
	argPlansOff = general
	defer func() { argPlansOff = false }()
	s := newBenchServer(tb)
	AddTool(s, Tool{Name: "search", Description: "Search"}, func(_ context.Context, _ *Request, in searchArgs) (ToolResult, error) {
		return ToolResult{Text: in.Query}, nil
	})
	return s
}

// BenchmarkTypedArgs measures what the argument plan buys (see argPlan): Dispatch of the
// same typed tools/call with the plan (path=plan) and by the general path, the JSON-Schema
// validator then sonic (path=general), in one run.
func BenchmarkTypedArgs(b *testing.B) {
	for _, path := range []string{"plan", "general"} {
		s := newTypedArgsServer(b, path == "general")
		for _, c := range typedArgsCalls {
			b.Run("args="+c.name+"/path="+path, func(b *testing.B) {
				var m decode.Message
				msg := []byte(c.msg)
				dst := make([]byte, 0, 1024)
				b.ReportAllocs()
				for b.Loop() {
					dst = dispatchOnce(b, s, &m, msg, dst)
				}
			})
		}
	}
}

// TestTypedArgsPaths checks that both paths of BenchmarkTypedArgs serve the same replies.
func TestTypedArgsPaths(t *testing.T) {
	plan, general := newTypedArgsServer(t, false), newTypedArgsServer(t, true)
	for _, c := range typedArgsCalls {
		var m decode.Message
		want := string(dispatchOnce(t, plan, &m, []byte(c.msg), nil))
		if got := string(dispatchOnce(t, general, &m, []byte(c.msg), nil)); got != want {
			t.Errorf("%s: general path %s, plan %s", c.name, got, want)
		}
	}
}
