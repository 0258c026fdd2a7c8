package tasks_test

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/tasks"
)

// gate is a tool handler's rendezvous with its test: started receives each run's context,
// release lets the runs return.
type gate struct {
	started chan context.Context
	release chan struct{}
	once    sync.Once
}

func newGate() *gate {
	return &gate{started: make(chan context.Context, 8), release: make(chan struct{})}
}

func (g *gate) open() { g.once.Do(func() { close(g.release) }) }

var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// testTools registers the tools of the tests:
//   - hold (Optional): reports its run on g, then waits for g's release or its context;
//   - echo (not listed: Sync): {text} echoed;
//   - ask2 (Optional): asks for a and b at once, then names both answers;
//   - boom (Required): a JSON-RPC error; panics (Required): a panic;
//   - strict (Required): {n: integer} validated.
func testTools(g *gate) func(*fastmcp.Server) {
	return func(s *fastmcp.Server) {
		s.AddRawTool(fastmcp.Tool{Name: "hold", Description: "waits", InputSchema: emptySchema},
			func(ctx context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
				g.started <- ctx
				select {
				case <-g.release:
					return fastmcp.ToolResult{Text: "held " + tasks.IDFrom(ctx)}, nil
				case <-ctx.Done():
					return fastmcp.ToolResult{}, ctx.Err()
				}
			})
		type echoArgs struct {
			Text string `json:"text"`
		}
		fastmcp.AddTool(s, fastmcp.Tool{Name: "echo", Description: "echoes"},
			func(_ context.Context, _ *fastmcp.Request, in echoArgs) (fastmcp.ToolResult, error) {
				return fastmcp.ToolResult{Text: in.Text}, nil
			})
		s.AddRawTool(fastmcp.Tool{Name: "ask2", Description: "asks twice", InputSchema: emptySchema},
			func(_ context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
				missing := map[string]fastmcp.InputRequest{}
				got := ""
				for _, k := range []string{"a", "b"} {
					var a struct {
						Content struct {
							Name string `json:"name"`
						} `json:"content"`
					}
					ok, err := r.InputResponse(k, &a)
					if err != nil {
						return fastmcp.ToolResult{}, err
					}
					if !ok {
						missing[k] = fastmcp.ElicitForm("Name "+k, json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`))
						continue
					}
					got += k + "=" + a.Content.Name + " "
				}
				if len(missing) > 0 {
					return fastmcp.ToolResult{}, &fastmcp.InputRequired{Requests: missing}
				}
				return fastmcp.ToolResult{Text: got}, nil
			})
		s.AddRawTool(fastmcp.Tool{Name: "boom", Description: "fails", InputSchema: emptySchema},
			func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
				return fastmcp.ToolResult{}, fastmcp.NewError(-32000, "boom", json.RawMessage(`{"why":"test"}`))
			})
		s.AddRawTool(fastmcp.Tool{Name: "panics", Description: "panics", InputSchema: emptySchema},
			func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
				panic("handler bug")
			})
		type strictArgs struct {
			N int `json:"n"`
		}
		fastmcp.AddTool(s, fastmcp.Tool{Name: "strict", Description: "validated"},
			func(_ context.Context, _ *fastmcp.Request, in strictArgs) (fastmcp.ToolResult, error) {
				return fastmcp.ToolResult{Text: "ok"}, nil
			})
	}
}

// testPolicies are the modes of testTools.
func testPolicies() map[string]tasks.Policy {
	return map[string]tasks.Policy{
		"hold": tasks.Optional, "ask2": tasks.Optional,
		"boom": tasks.Required, "panics": tasks.Required, "strict": tasks.Required,
	}
}
