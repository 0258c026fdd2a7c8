package wirevector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// schema2020 is the conformance suite's json_schema_2020_12_tool input schema, written with
// whitespace: tools/list must list it with every keyword kept, in order, compacted.
const schema2020 = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": {
    "address": {
      "$anchor": "addressDef",
      "type": "object",
      "properties": { "street": { "type": "string" }, "city": { "type": "string" } }
    }
  },
  "properties": {
    "name": { "type": "string" },
    "address": { "$ref": "#/$defs/address" },
    "contactMethod": { "type": "string", "enum": ["phone", "email"] },
    "phone": { "type": "string", "x-mcp-header": "Phone" },
    "email": { "type": "string" }
  },
  "allOf": [{ "anyOf": [{ "required": ["phone"] }, { "required": ["email"] }] }],
  "if": { "properties": { "contactMethod": { "const": "phone" } }, "required": ["contactMethod"] },
  "then": { "required": ["phone"] },
  "else": { "required": ["email"] },
  "additionalProperties": false
}`

// echoFixture serves tools: every result shape, protocol errors, panics, progress, logging.
func echoFixture() *Fixture {
	var count atomic.Int64
	return &Fixture{Info: vectorInfo, Register: func(s *fastmcp.Server) {
		// Registered out of order: tools/list sorts by name.
		type echoIn struct {
			Text string `json:"text"`
		}
		fastmcp.AddTool(s, fastmcp.Tool{
			Name: "echo", Description: "Echoes its text",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"Text to echo"}},"required":["text"]}`),
		}, func(_ context.Context, _ *fastmcp.Request, in echoIn) (fastmcp.ToolResult, error) {
			return text(in.Text)
		})
		type addIn struct {
			A int `json:"a"`
			B int `json:"b"`
		}
		type addOut struct {
			Sum int `json:"sum"`
		}
		fastmcp.AddStructuredTool(s, fastmcp.Tool{
			Name: "add", Description: "Adds two integers",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"]}`),
		}, func(_ context.Context, _ *fastmcp.Request, in addIn) (addOut, error) {
			return addOut{Sum: in.A + in.B}, nil
		})
		s.AddRawTool(fastmcp.Tool{Name: "fail", Description: "Fails like a tool", InputSchema: objectSchema},
			func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
				return fastmcp.ToolResult{}, errors.New("the disk is full")
			})
		s.AddRawTool(fastmcp.Tool{Name: "crash", Description: "Panics", InputSchema: objectSchema},
			func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
				panic("secret internal detail")
			})
		s.AddRawTool(fastmcp.Tool{Name: "count", Description: "Counts its calls", InputSchema: objectSchema},
			func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
				return text(strconv.FormatInt(count.Add(1), 10))
			})
		s.AddRawTool(fastmcp.Tool{Name: "refuse", Description: "Answers a protocol error", InputSchema: objectSchema},
			func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
				return fastmcp.ToolResult{}, fastmcp.NewError(fastmcp.CodeInvalidParams, "Region is closed", json.RawMessage(`{"region":"mars"}`))
			})
		s.AddRawTool(fastmcp.Tool{Name: "json_schema_2020_12_tool", Description: "Tool with JSON Schema 2020-12 features",
			InputSchema: json.RawMessage(schema2020)},
			func(_ context.Context, _ *fastmcp.Request, args json.RawMessage) (fastmcp.ToolResult, error) {
				return text("called with " + string(args))
			})
		s.AddRawTool(fastmcp.Tool{Name: "progress", Description: "Reports progress", InputSchema: objectSchema},
			func(ctx context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
				for i, p := range []float64{0, 50, 100} {
					if err := r.Progress(ctx, p, 100, fmt.Sprintf("Completed step %d of 3", i+1)); err != nil {
						return fastmcp.ToolResult{}, err
					}
				}
				_ = r.Progress(ctx, 100, 100, "repeated") // refused: progress must increase (a fourth notification would fail the vector)
				return text("done")
			})
		s.AddRawTool(fastmcp.Tool{Name: "log", Description: "Logs at four levels", InputSchema: objectSchema},
			func(ctx context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
				for _, l := range []struct {
					level fastmcp.LogLevel
					data  any
				}{
					{fastmcp.LogDebug, "connecting"},
					{fastmcp.LogInfo, "connected"},
					{fastmcp.LogWarning, map[string]string{"disk": "low"}},
					{fastmcp.LogError, "write failed"},
				} {
					if err := r.Log(ctx, l.level, "vec", l.data); err != nil {
						return fastmcp.ToolResult{}, err
					}
				}
				return text("logged")
			})
		s.AddRawTool(fastmcp.Tool{Name: "meta", Description: "Returns the request _meta", InputSchema: objectSchema},
			func(_ context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
				return text(string(r.Meta()))
			})
		s.AddRawTool(fastmcp.Tool{Name: "rich", Description: "Returns every content type", InputSchema: objectSchema},
			func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
				return fastmcp.ToolResult{Text: "all kinds", Content: []fastmcp.Content{
					fastmcp.Image([]byte{1, 2, 3}, "image/png"),
					fastmcp.Audio([]byte("RIFF"), "audio/wav"),
					fastmcp.ResourceLink("test://linked", "linked", "text/plain"),
					fastmcp.Embedded(fastmcp.ResourceContents{URI: "test://embedded", MimeType: "text/plain", Text: "embedded text"}),
				}}, nil
			})
		s.AddRawTool(fastmcp.Tool{Name: "loose_json", Description: "Returns JSON with whitespace", InputSchema: objectSchema},
			func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
				c := fastmcp.Text("block")
				c.Meta = json.RawMessage("{ \"block\" : true }")
				return fastmcp.ToolResult{
					Content:    []fastmcp.Content{c},
					Structured: json.RawMessage("{\n  \"x\": [1, 2]\n}"),
					Meta:       json.RawMessage("{\n  \"com.example/k\": 1\n}"),
				}, nil
			})
		s.AddRawTool(fastmcp.Tool{Name: "bad_meta", Description: "Returns a _meta that is not an object", InputSchema: objectSchema},
			func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
				return fastmcp.ToolResult{Text: "x", Meta: json.RawMessage(`[1]`)}, nil
			})
		yes := true
		s.AddRawTool(fastmcp.Tool{
			Name: "annotated", Title: "Annotated Tool", Description: "Has every listed field", InputSchema: objectSchema,
			Annotations: &fastmcp.ToolAnnotations{Title: "Annotated", ReadOnlyHint: &yes},
			Icons:       []fastmcp.Icon{{Src: "https://example.com/icon.png", MimeType: "image/png", Sizes: []string{"48x48"}}},
			Meta:        json.RawMessage(`{"com.example/owner":"vectors"}`),
		}, func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
			return text("ok")
		})
	}}
}

// discoverFixture has one component of each kind, instructions, a public discover cache and a
// server identity with every optional field.
func discoverFixture() *Fixture {
	return &Fixture{
		Info: fastmcp.Implementation{Name: "vectors", Version: "1.0.0", Title: "Vector Server", WebsiteURL: "https://example.com/vectors"},
		Config: fastmcp.Config{
			Instructions:  "Call echo to repeat text.",
			DiscoverCache: fastmcp.CacheHint{TTL: time.Hour, Scope: fastmcp.CachePublic},
		},
		Register: func(s *fastmcp.Server) {
			s.AddRawTool(fastmcp.Tool{Name: "echo", InputSchema: objectSchema},
				func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) { return text("") })
			s.AddPrompt(fastmcp.Prompt{Name: "p", Arguments: []fastmcp.PromptArgument{{Name: "a"}},
				Complete: func(context.Context, *fastmcp.Request, string, string, map[string]string) (fastmcp.Completion, error) {
					return fastmcp.Completion{}, nil
				}},
				func(context.Context, *fastmcp.Request, map[string]string) (fastmcp.PromptResult, error) {
					return fastmcp.PromptResult{}, nil
				})
			s.AddResource(fastmcp.Resource{URI: "test://r", Name: "r"},
				func(context.Context, *fastmcp.Request, string) ([]fastmcp.ResourceContents, error) {
					return []fastmcp.ResourceContents{{Text: "r"}}, nil
				})
		},
	}
}

// echoModernFixture is echoFixture on a server that serves 2026-07-28 only (Config.Dialects
// [Modern]): initialize gets the modern-only answer.
func echoModernFixture() *Fixture {
	fx := echoFixture()
	fx.Config.Dialects = []fastmcp.Dialect{fastmcp.Modern}
	return fx
}
