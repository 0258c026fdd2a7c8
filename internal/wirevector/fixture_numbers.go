package wirevector

import (
	"context"
	"encoding/json"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// numbersFixture serves tools whose arguments are numbers: typed tools decoded by the plan
// (small, ratio) and by sonic (sleep), and a raw tool whose schema bounds them (bounded). Each
// answers with its arguments as JSON.
func numbersFixture() *Fixture {
	echo := func(in any) (fastmcp.ToolResult, error) {
		b, err := json.Marshal(in)
		return fastmcp.ToolResult{Text: string(b)}, err
	}
	return &Fixture{Info: vectorInfo, Register: func(s *fastmcp.Server) {
		type sleepIn struct {
			MS   int64   `json:"ms"`
			List []int64 `json:"list,omitempty"`
		}
		fastmcp.AddTool(s, fastmcp.Tool{Name: "sleep", Description: "Sleeps for ms milliseconds"},
			func(_ context.Context, _ *fastmcp.Request, in sleepIn) (fastmcp.ToolResult, error) { return echo(in) })
		type smallIn struct {
			N int8   `json:"n,omitempty"`
			U uint16 `json:"u,omitempty"`
		}
		fastmcp.AddTool(s, fastmcp.Tool{Name: "small", Description: "Takes small integers"},
			func(_ context.Context, _ *fastmcp.Request, in smallIn) (fastmcp.ToolResult, error) { return echo(in) })
		type ratioIn struct {
			R float64 `json:"r"`
		}
		fastmcp.AddTool(s, fastmcp.Tool{Name: "ratio", Description: "Takes a float"},
			func(_ context.Context, _ *fastmcp.Request, in ratioIn) (fastmcp.ToolResult, error) { return echo(in) })
		s.AddRawTool(fastmcp.Tool{Name: "bounded", Description: "Bounded numbers",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","maximum":100},"tags":{"type":"array","uniqueItems":true}}}`)},
			func(_ context.Context, _ *fastmcp.Request, args json.RawMessage) (fastmcp.ToolResult, error) {
				return text(string(args))
			})
	}}
}
