package wirevector

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// legacyFixture serves the initialize-era vectors: one component of each kind with icons
// (which 2025-06-18 does not list), a server identity with every optional field (2025-06-18
// keeps name, version and title), instructions, tools whose schemas those revisions cannot
// express (hidden there, listed in 2026-07-28), a structured result that is not an object,
// logging and progress.
func legacyFixture() *Fixture {
	icon := []fastmcp.Icon{{Src: "https://example.com/icon.png", MimeType: "image/png"}}
	return &Fixture{
		Info: fastmcp.Implementation{Name: "vectors", Version: "1.0.0", Title: "Vector Server",
			Description: "Serves the wire vectors", WebsiteURL: "https://example.com/vectors", Icons: icon},
		Config: fastmcp.Config{Instructions: "Call echo to repeat text."},
		Register: func(s *fastmcp.Server) {
			type echoIn struct {
				Text string `json:"text"`
			}
			fastmcp.AddTool(s, fastmcp.Tool{Name: "echo", Title: "Echo", Description: "Echoes its text", Icons: icon,
				InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
			}, func(_ context.Context, _ *fastmcp.Request, in echoIn) (fastmcp.ToolResult, error) {
				return text(in.Text)
			})
			type addIn struct{ A, B int }
			type addOut struct {
				Sum int `json:"sum"`
			}
			fastmcp.AddStructuredTool(s, fastmcp.Tool{Name: "add", Description: "Adds two integers",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"A":{"type":"integer"},"B":{"type":"integer"}}}`),
			}, func(_ context.Context, _ *fastmcp.Request, in addIn) (addOut, error) {
				return addOut{Sum: in.A + in.B}, nil
			})
			s.AddRawTool(fastmcp.Tool{Name: "list_result", Description: "Returns a structured array", InputSchema: objectSchema},
				func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
					return fastmcp.ToolResult{Text: "[1,2]", Structured: json.RawMessage(`[1,2]`)}, nil
				})
			s.AddRawTool(fastmcp.Tool{Name: "array_output", Description: "Has an array output schema", InputSchema: objectSchema,
				OutputSchema: json.RawMessage(`{"type":"array","items":{"type":"integer"}}`)},
				func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
					return fastmcp.ToolResult{Structured: json.RawMessage(`[1]`)}, nil
				})
			s.AddRawTool(fastmcp.Tool{Name: "boolean_property", Description: "Has a boolean property schema",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"anything":true}}`)},
				func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
					return text("ok")
				})
			s.AddRawTool(fastmcp.Tool{Name: "json_schema_2020_12_tool", Description: "Tool with JSON Schema 2020-12 features",
				InputSchema: json.RawMessage(schema2020)},
				func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
					return text("ok")
				})
			s.AddRawTool(fastmcp.Tool{Name: "log", Description: "Logs at three levels", InputSchema: objectSchema},
				func(ctx context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
					for _, l := range []fastmcp.LogLevel{fastmcp.LogDebug, fastmcp.LogInfo, fastmcp.LogWarning} {
						if err := r.Log(ctx, l, "vec", l.String()+" message"); err != nil {
							return fastmcp.ToolResult{}, err
						}
					}
					return text("logged")
				})
			s.AddRawTool(fastmcp.Tool{Name: "progress", Description: "Reports progress", InputSchema: objectSchema},
				func(ctx context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
					for i := range 3 {
						if err := r.Progress(ctx, float64(i+1), 3, fmt.Sprintf("step %d", i+1)); err != nil {
							return fastmcp.ToolResult{}, err
						}
					}
					return text("done")
				})
			s.AddPrompt(fastmcp.Prompt{Name: "greet", Title: "Greeting", Description: "Greets someone", Icons: icon,
				Arguments: []fastmcp.PromptArgument{{Name: "who", Required: true}},
				Complete: func(_ context.Context, _ *fastmcp.Request, _, value string, _ map[string]string) (fastmcp.Completion, error) {
					return fastmcp.CompletePrefix([]string{"world", "wasps", "you"}, value), nil
				}},
				func(_ context.Context, _ *fastmcp.Request, args map[string]string) (fastmcp.PromptResult, error) {
					return fastmcp.PromptResult{Messages: []fastmcp.PromptMessage{
						fastmcp.UserMessage(fastmcp.Text("Hello, " + args["who"])),
						fastmcp.AssistantMessage(fastmcp.Image([]byte{0x89, 'P', 'N', 'G'}, "image/png")),
					}}, nil
				})
			s.AddResource(fastmcp.Resource{URI: "test://watched-resource", Name: "watched", Title: "Watched", MimeType: "text/plain", Icons: icon},
				func(context.Context, *fastmcp.Request, string) ([]fastmcp.ResourceContents, error) {
					return []fastmcp.ResourceContents{{Text: "watched content"}}, nil
				})
			s.AddResource(fastmcp.Resource{URI: "test://static-binary", Name: "static-binary", MimeType: "image/png", Size: 4},
				func(context.Context, *fastmcp.Request, string) ([]fastmcp.ResourceContents, error) {
					return []fastmcp.ResourceContents{{Blob: []byte{0x89, 'P', 'N', 'G'}}}, nil
				})
			s.AddResourceTemplate(fastmcp.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template",
				MimeType: "application/json", Icons: icon},
				func(_ context.Context, _ *fastmcp.Request, _ string, vars map[string]string) ([]fastmcp.ResourceContents, error) {
					return []fastmcp.ResourceContents{{Text: `{"id":"` + vars["id"] + `"}`}}, nil
				})
		},
	}
}
