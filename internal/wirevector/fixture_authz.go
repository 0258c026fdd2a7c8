package wirevector

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"time"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// authzFixture has an authorization policy that hides, refuses and faults on chosen
// components, and wrappers (a rate limit, a timeout) behind it. A listen stream is closed as
// soon as it is acknowledged.
func authzFixture(conceal bool) *Fixture {
	var gateCalls atomic.Int64
	policy := func(_ context.Context, phase fastmcp.Phase, _ string, c fastmcp.Component) error {
		switch {
		case c.Name == "hidden", c.URI == "test://private", c.Name == "locked", c.RequestedURI == "test://docs/secret":
			return fastmcp.ErrRefused
		case phase == fastmcp.PhaseDiscovery:
			return nil
		case c.Name == "scoped":
			return fastmcp.NewError(-31001, "Insufficient scope", json.RawMessage(`{"required":"admin"}`))
		case c.Name == "faulty":
			return errors.New("policy store unreachable")
		case c.Name == "gate" && gateCalls.Add(1) == 1:
			return fastmcp.ErrRefused // the first call only
		}
		return nil
	}
	return &Fixture{
		Info:   vectorInfo,
		Config: fastmcp.Config{Authorizer: fastmcp.AuthorizerFunc(policy), ConcealRefusals: conceal},
		// A listen ends right after its acknowledgement, which shows the URIs it honours.
		OnNotify: func(s *fastmcp.Server, _ int, _ []byte) { s.CloseSubscriptions() },
		Register: func(s *fastmcp.Server) {
			ok := func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
				return text("ok")
			}
			for _, n := range []string{"open", "hidden", "scoped", "faulty"} {
				s.AddRawTool(fastmcp.Tool{Name: n, InputSchema: objectSchema}, ok)
			}
			s.AddRawTool(fastmcp.Tool{Name: "gate", InputSchema: objectSchema,
				Wrap: []fastmcp.Wrapper{fastmcp.RateLimit(fastmcp.RateLimitOptions{Limit: 1})}}, ok)
			s.AddRawTool(fastmcp.Tool{Name: "limited",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`),
				Wrap:        []fastmcp.Wrapper{fastmcp.RateLimit(fastmcp.RateLimitOptions{Limit: 1})}}, ok)
			wait := func(ctx context.Context, _ *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
				<-ctx.Done()
				return fastmcp.ToolResult{}, ctx.Err()
			}
			s.AddRawTool(fastmcp.Tool{Name: "slow", InputSchema: objectSchema,
				Wrap: []fastmcp.Wrapper{fastmcp.Timeout(fastmcp.TimeoutOptions{Timeout: 20 * time.Millisecond})}}, wait)
			read := func(_ context.Context, _ *fastmcp.Request, uri string) ([]fastmcp.ResourceContents, error) {
				return []fastmcp.ResourceContents{{Text: uri}}, nil
			}
			s.AddResource(fastmcp.Resource{URI: "test://public", Name: "public"}, read)
			s.AddResource(fastmcp.Resource{URI: "test://private", Name: "private"}, read)
			s.AddResource(fastmcp.Resource{URI: "test://slow", Name: "slow-resource",
				Wrap: []fastmcp.Wrapper{fastmcp.Timeout(fastmcp.TimeoutOptions{Timeout: 20 * time.Millisecond})}},
				func(ctx context.Context, _ *fastmcp.Request, _ string) ([]fastmcp.ResourceContents, error) {
					<-ctx.Done()
					return nil, ctx.Err()
				})
			s.AddResourceTemplate(fastmcp.ResourceTemplate{URITemplate: "test://docs/{name}", Name: "docs"},
				func(_ context.Context, _ *fastmcp.Request, uri string, _ map[string]string) ([]fastmcp.ResourceContents, error) {
					return []fastmcp.ResourceContents{{Text: uri}}, nil
				})
			s.AddPrompt(fastmcp.Prompt{Name: "locked"}, func(context.Context, *fastmcp.Request, map[string]string) (fastmcp.PromptResult, error) {
				return fastmcp.PromptResult{}, nil
			})
		},
	}
}

// faultsFixture's handlers misbehave in the ways a server's own code can: a typed nil *Error
// as the error, invalid input requests, results the protocol does not allow, output that does
// not match the output schema, plain errors from resource, prompt and completion handlers.
func faultsFixture() *Fixture {
	return &Fixture{Info: vectorInfo, Register: func(s *fastmcp.Server) {
		var nilErr *fastmcp.Error
		tool := func(name string, output json.RawMessage, h fastmcp.RawToolHandler) {
			s.AddRawTool(fastmcp.Tool{Name: name, InputSchema: objectSchema, OutputSchema: output}, h)
		}
		tool("nil_error", nil, func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
			return fastmcp.ToolResult{Text: "fine"}, nilErr
		})
		tool("bad_input_method", nil, func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
			return fastmcp.ToolResult{}, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{
				"x": {Method: "ping", Params: json.RawMessage(`{}`)},
			}}
		})
		tool("bad_input_params", nil, func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
			return fastmcp.ToolResult{}, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{
				"x": {Method: "roots/list", Params: json.RawMessage(`{`)},
			}}
		})
		tool("bad_structured", nil, func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
			return fastmcp.ToolResult{Structured: make(chan int)}, nil
		})
		sum := json.RawMessage(`{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"]}`)
		tool("wrong_output", sum, func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
			return fastmcp.ToolResult{Structured: map[string]int{"total": 3}}, nil
		})
		tool("no_output", sum, func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
			return text("forgot the structured result")
		})
		tool("failed_output", sum, func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
			return fastmcp.ToolResult{}, errors.New("no sum today")
		})
		read := func(uri string, h fastmcp.ResourceHandler) {
			s.AddResource(fastmcp.Resource{URI: uri, Name: strings.TrimPrefix(uri, "test://")}, h)
		}
		read("test://nil-error", func(context.Context, *fastmcp.Request, string) ([]fastmcp.ResourceContents, error) {
			return nil, nilErr
		})
		read("test://empty", func(context.Context, *fastmcp.Request, string) ([]fastmcp.ResourceContents, error) {
			return nil, nil
		})
		read("test://refused", func(context.Context, *fastmcp.Request, string) ([]fastmcp.ResourceContents, error) {
			return nil, fastmcp.NewError(fastmcp.CodeInvalidParams, "Shard is read-only", nil)
		})
		prompt := func(name string, h fastmcp.PromptHandler, c fastmcp.CompletionHandler) {
			s.AddPrompt(fastmcp.Prompt{Name: name, Arguments: []fastmcp.PromptArgument{{Name: "a"}}, Complete: c}, h)
		}
		prompt("nil_error", func(context.Context, *fastmcp.Request, map[string]string) (fastmcp.PromptResult, error) {
			return fastmcp.PromptResult{}, nilErr
		}, func(context.Context, *fastmcp.Request, string, string, map[string]string) (fastmcp.Completion, error) {
			return fastmcp.Completion{}, nilErr
		})
		prompt("bad_role", func(context.Context, *fastmcp.Request, map[string]string) (fastmcp.PromptResult, error) {
			return fastmcp.PromptResult{Messages: []fastmcp.PromptMessage{{Role: "system", Content: fastmcp.Text("x")}}}, nil
		}, func(context.Context, *fastmcp.Request, string, string, map[string]string) (fastmcp.Completion, error) {
			return fastmcp.Completion{Values: []string{"a", "b"}, Total: 1}, nil
		})
		prompt("failing", func(context.Context, *fastmcp.Request, map[string]string) (fastmcp.PromptResult, error) {
			return fastmcp.PromptResult{}, errors.New("template store unreachable")
		}, func(context.Context, *fastmcp.Request, string, string, map[string]string) (fastmcp.Completion, error) {
			return fastmcp.Completion{}, errors.New("index unreachable")
		})
		prompt("bad_meta", func(context.Context, *fastmcp.Request, map[string]string) (fastmcp.PromptResult, error) {
			return fastmcp.PromptResult{Meta: json.RawMessage(`"x"`)}, nil
		}, nil)
	}}
}
