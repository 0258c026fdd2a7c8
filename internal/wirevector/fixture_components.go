package wirevector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// componentsFixture serves resources, a resource template, prompts and completion.
func componentsFixture() *Fixture {
	return &Fixture{
		Info: vectorInfo,
		Config: fastmcp.Config{
			ResourcesCache: fastmcp.CacheHint{TTL: 30 * time.Second},
			PromptsCache:   fastmcp.CacheHint{TTL: 10 * time.Second, Scope: fastmcp.CachePublic},
		},
		Register: func(s *fastmcp.Server) {
			s.AddResource(fastmcp.Resource{URI: "test://static-text", Name: "static-text", Description: "A static text resource", MimeType: "text/plain"},
				func(context.Context, *fastmcp.Request, string) ([]fastmcp.ResourceContents, error) {
					return []fastmcp.ResourceContents{{Text: "This is the content of the static text resource."}}, nil
				})
			s.AddResource(fastmcp.Resource{URI: "test://static-binary", Name: "static-binary", MimeType: "image/png", Size: 4},
				func(context.Context, *fastmcp.Request, string) ([]fastmcp.ResourceContents, error) {
					return []fastmcp.ResourceContents{{Blob: []byte{0x89, 'P', 'N', 'G'}}}, nil
				})
			s.AddResource(fastmcp.Resource{URI: "test://broken", Name: "broken"},
				func(context.Context, *fastmcp.Request, string) ([]fastmcp.ResourceContents, error) {
					return nil, errors.New("connection refused by db-7.internal")
				})
			s.AddResource(fastmcp.Resource{URI: "test://cached", Name: "cached", Cache: &fastmcp.CacheHint{TTL: 5 * time.Second, Scope: fastmcp.CachePublic}},
				func(context.Context, *fastmcp.Request, string) ([]fastmcp.ResourceContents, error) {
					return []fastmcp.ResourceContents{{Text: "cached", MimeType: "text/markdown"}}, nil
				})
			s.AddResourceTemplate(fastmcp.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template",
				Description: "Data by id", MimeType: "application/json",
				Complete: func(_ context.Context, _ *fastmcp.Request, _, value string, _ map[string]string) (fastmcp.Completion, error) {
					return fastmcp.CompletePrefix([]string{"123", "124", "200"}, value), nil
				}},
				func(_ context.Context, _ *fastmcp.Request, _ string, vars map[string]string) ([]fastmcp.ResourceContents, error) {
					return []fastmcp.ResourceContents{{Text: `{"id":"` + vars["id"] + `"}`}}, nil
				})
			s.AddPrompt(fastmcp.Prompt{Name: "simple", Description: "A simple prompt"},
				func(context.Context, *fastmcp.Request, map[string]string) (fastmcp.PromptResult, error) {
					return fastmcp.PromptResult{Messages: []fastmcp.PromptMessage{fastmcp.UserMessage(fastmcp.Text("This is a simple prompt."))}}, nil
				})
			s.AddPrompt(fastmcp.Prompt{Name: "with_args", Description: "A prompt with arguments",
				Arguments: []fastmcp.PromptArgument{{Name: "arg1", Required: true}, {Name: "arg2", Description: "Second", Required: true}, {Name: "arg3"}},
				Complete: func(_ context.Context, _ *fastmcp.Request, arg, value string, ctx map[string]string) (fastmcp.Completion, error) {
					if arg == "arg2" {
						return fastmcp.Completion{Values: []string{ctx["arg1"] + "-2"}}, nil
					}
					return fastmcp.CompletePrefix([]string{"alpha", "alpine", "beta"}, value), nil
				}},
				func(_ context.Context, _ *fastmcp.Request, args map[string]string) (fastmcp.PromptResult, error) {
					return fastmcp.PromptResult{Description: "Rendered", Messages: []fastmcp.PromptMessage{
						fastmcp.UserMessage(fastmcp.Text(fmt.Sprintf("arg1=%s, arg2=%s", args["arg1"], args["arg2"]))),
						fastmcp.AssistantMessage(fastmcp.Text("noted")),
					}}, nil
				})
			s.AddPrompt(fastmcp.Prompt{Name: "with_image", Description: "A prompt with an image and a resource"},
				func(context.Context, *fastmcp.Request, map[string]string) (fastmcp.PromptResult, error) {
					return fastmcp.PromptResult{Messages: []fastmcp.PromptMessage{
						fastmcp.UserMessage(fastmcp.Image([]byte{0x89, 'P', 'N', 'G'}, "image/png")),
						fastmcp.UserMessage(fastmcp.Embedded(fastmcp.ResourceContents{URI: "test://static-text", MimeType: "text/plain", Text: "embedded"})),
					}}, nil
				})
			s.AddPrompt(fastmcp.Prompt{Name: "crash", Description: "Panics"},
				func(context.Context, *fastmcp.Request, map[string]string) (fastmcp.PromptResult, error) {
					panic("secret internal detail")
				})
			s.AddPrompt(fastmcp.Prompt{Name: "too_many", Description: "Completes with too many values",
				Arguments: []fastmcp.PromptArgument{{Name: "x"}},
				Complete: func(context.Context, *fastmcp.Request, string, string, map[string]string) (fastmcp.Completion, error) {
					return fastmcp.Completion{Values: make([]string, fastmcp.MaxCompletionValues+1)}, nil
				}},
				func(context.Context, *fastmcp.Request, map[string]string) (fastmcp.PromptResult, error) {
					return fastmcp.PromptResult{}, nil
				})
		},
	}
}

// pagesFixture has a page size of 2: five tools and three prompts make several pages. The tool
// z_mutate removes t1, which expires the cursors of the old catalog.
func pagesFixture() *Fixture {
	return &Fixture{Info: vectorInfo, Config: fastmcp.Config{PageSize: 2}, Register: func(s *fastmcp.Server) {
		noop := func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) { return text("") }
		for _, n := range []string{"t3", "t1", "t4", "t2"} {
			s.AddRawTool(fastmcp.Tool{Name: n, InputSchema: objectSchema}, noop)
		}
		s.AddRawTool(fastmcp.Tool{Name: "z_mutate", InputSchema: objectSchema},
			func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
				s.RemoveTools("t1")
				return text("removed t1")
			})
		for _, n := range []string{"p1", "p2", "p3"} {
			s.AddPrompt(fastmcp.Prompt{Name: n}, func(context.Context, *fastmcp.Request, map[string]string) (fastmcp.PromptResult, error) {
				return fastmcp.PromptResult{}, nil
			})
		}
	}}
}

// listenFixture has a tool and a resource. On a listen stream, after the acknowledgement it
// registers the tool t2 (tools/list_changed), after that notification it announces an update
// of test://watched, and after that one it closes the subscriptions, so the listen request
// gets its completion response. Any later listen is refused: the server is shutting down.
func listenFixture() *Fixture {
	return &Fixture{
		Info: vectorInfo,
		Register: func(s *fastmcp.Server) {
			s.AddRawTool(fastmcp.Tool{Name: "t1", InputSchema: objectSchema},
				func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) { return text("") })
			s.AddResource(fastmcp.Resource{URI: "test://watched", Name: "watched"},
				func(context.Context, *fastmcp.Request, string) ([]fastmcp.ResourceContents, error) {
					return []fastmcp.ResourceContents{{Text: "w"}}, nil
				})
		},
		OnNotify: func(s *fastmcp.Server, n int, _ []byte) {
			switch n {
			case 1:
				s.AddRawTool(fastmcp.Tool{Name: "t2", InputSchema: objectSchema},
					func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) { return text("") })
			case 2:
				s.NotifyResourceUpdated("test://not-subscribed")
				s.NotifyResourceUpdated("test://watched")
			case 3:
				s.CloseSubscriptions()
			}
		},
	}
}
