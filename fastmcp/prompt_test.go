package fastmcp

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// addTestPrompts registers the prompts of the conformance fixtures.
func addTestPrompts(s *Server) {
	s.AddPrompt(Prompt{Name: "test_simple_prompt", Description: "A simple prompt"},
		func(context.Context, *Request, map[string]string) (PromptResult, error) {
			return PromptResult{Messages: []PromptMessage{UserMessage(Text("This is a simple prompt for testing."))}}, nil
		})
	s.AddPrompt(Prompt{
		Name: "test_prompt_with_arguments", Description: "A prompt with arguments",
		Arguments: []PromptArgument{
			{Name: "arg1", Description: "First argument", Required: true},
			{Name: "arg2", Description: "Second argument", Required: true},
		},
		Complete: func(_ context.Context, _ *Request, _, value string, _ map[string]string) (Completion, error) {
			return CompletePrefix([]string{"testValue1", "testValue2", "other"}, value), nil
		},
	}, func(_ context.Context, _ *Request, args map[string]string) (PromptResult, error) {
		text := "Prompt with arguments: arg1='" + args["arg1"] + "', arg2='" + args["arg2"] + "'"
		return PromptResult{Messages: []PromptMessage{UserMessage(Text(text))}}, nil
	})
	s.AddPrompt(Prompt{
		Name: "test_prompt_with_embedded_resource", Description: "A prompt with an embedded resource",
		Arguments: []PromptArgument{{Name: "resourceUri", Required: true}},
	}, func(_ context.Context, _ *Request, args map[string]string) (PromptResult, error) {
		return PromptResult{Messages: []PromptMessage{
			UserMessage(Embedded(ResourceContents{URI: args["resourceUri"], MimeType: "text/plain", Text: "Embedded resource content for testing."})),
			UserMessage(Text("Please process the embedded resource above.")),
		}}, nil
	})
	s.AddPrompt(Prompt{Name: "test_prompt_with_image", Description: "A prompt with an image"},
		func(context.Context, *Request, map[string]string) (PromptResult, error) {
			return PromptResult{Messages: []PromptMessage{
				UserMessage(Image(testPNG, "image/png")),
				UserMessage(Text("Please analyze the image above.")),
			}}, nil
		})
	s.AddPrompt(Prompt{Name: "test_input_required_result_prompt", Description: "A prompt that asks for context"},
		func(_ context.Context, r *Request, _ map[string]string) (PromptResult, error) {
			var answer struct {
				Action  string `json:"action"`
				Content struct {
					Context string `json:"context"`
				} `json:"content"`
			}
			if ok, err := r.InputResponse("user_context", &answer); err != nil {
				return PromptResult{}, err
			} else if !ok || answer.Action != "accept" {
				return PromptResult{}, &InputRequired{Requests: map[string]InputRequest{
					"user_context": ElicitForm("What context should the prompt use?",
						json.RawMessage(`{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}`)),
				}}
			}
			return PromptResult{Messages: []PromptMessage{UserMessage(Text("Prompt with context: " + answer.Content.Context))}}, nil
		})
}

func TestPromptsList(t *testing.T) {
	t.Run("conformance fixtures, sorted by name", func(t *testing.T) {
		s := newTestServer(t, nil)
		addTestPrompts(s)
		got := dispatch(t, s, compReq("prompts/list", ""))
		assert.Equal(t, compOK(`"resultType":"complete","prompts":[`+
			`{"name":"test_input_required_result_prompt","description":"A prompt that asks for context","arguments":[]},`+
			`{"name":"test_prompt_with_arguments","description":"A prompt with arguments","arguments":[{"name":"arg1","description":"First argument","required":true},{"name":"arg2","description":"Second argument","required":true}]},`+
			`{"name":"test_prompt_with_embedded_resource","description":"A prompt with an embedded resource","arguments":[{"name":"resourceUri","required":true}]},`+
			`{"name":"test_prompt_with_image","description":"A prompt with an image","arguments":[]},`+
			`{"name":"test_simple_prompt","description":"A simple prompt","arguments":[]}`+
			`],"ttlMs":0,"cacheScope":"private"`), got)
		requireWire(t, "ListPromptsResult", got)
	})
	t.Run("every member, cache hint from the config", func(t *testing.T) {
		s := newTestServer(t, &Config{PromptsCache: CacheHint{TTL: 2 * time.Second, Scope: CachePublic}})
		s.AddPrompt(Prompt{
			Name: "review", Title: "Code review", Description: "Reviews \"code\"",
			Arguments: []PromptArgument{{Name: "lang", Title: "Language"}, {Name: "code", Description: "The code", Required: true}},
			Icons:     []Icon{{Src: "https://example.com/r.svg", MimeType: "image/svg+xml", Sizes: []string{"any"}}},
			Meta:      json.RawMessage(`{"vendor.example/tier": "gold"}`),
		}, func(context.Context, *Request, map[string]string) (PromptResult, error) { return PromptResult{}, nil })
		got := dispatch(t, s, compReq("prompts/list", ""))
		assert.Equal(t, compOK(`"resultType":"complete","prompts":[`+
			`{"name":"review","title":"Code review","description":"Reviews \"code\"","arguments":[{"name":"lang","title":"Language"},{"name":"code","description":"The code","required":true}],`+
			`"icons":[{"src":"https://example.com/r.svg","mimeType":"image/svg+xml","sizes":["any"]}],"_meta":{"vendor.example/tier":"gold"}}`+
			`],"ttlMs":2000,"cacheScope":"public"`), got)
		requireWire(t, "ListPromptsResult", got)
	})
	t.Run("pages", func(t *testing.T) {
		s := newTestServer(t, &Config{PageSize: 2})
		addTestPrompts(s)
		entry := func(name, desc string) string {
			return `{"name":"` + name + `","description":"` + desc + `","arguments":[]}`
		}
		page1 := dispatch(t, s, compReq("prompts/list", ""))
		c1 := resultMember(t, page1, "nextCursor")
		assert.Equal(t, compOK(`"resultType":"complete","prompts":[`+entry("test_input_required_result_prompt", "A prompt that asks for context")+
			`,{"name":"test_prompt_with_arguments","description":"A prompt with arguments","arguments":[{"name":"arg1","description":"First argument","required":true},{"name":"arg2","description":"Second argument","required":true}]}`+
			`],"nextCursor":"`+c1+`","ttlMs":0,"cacheScope":"private"`), page1)
		page2 := dispatch(t, s, compReq("prompts/list", `"cursor":"`+c1+`"`))
		c2 := resultMember(t, page2, "nextCursor")
		assert.Equal(t, compOK(`"resultType":"complete","prompts":[`+
			`{"name":"test_prompt_with_embedded_resource","description":"A prompt with an embedded resource","arguments":[{"name":"resourceUri","required":true}]},`+
			entry("test_prompt_with_image", "A prompt with an image")+
			`],"nextCursor":"`+c2+`","ttlMs":0,"cacheScope":"private"`), page2)
		page3 := dispatch(t, s, compReq("prompts/list", `"cursor":"`+c2+`"`))
		assert.Equal(t, compOK(`"resultType":"complete","prompts":[`+entry("test_simple_prompt", "A simple prompt")+`],"ttlMs":0,"cacheScope":"private"`), page3)
		for _, p := range []string{page1, page2, page3} {
			requireWire(t, "ListPromptsResult", p)
		}
		assert.Equal(t, compErr(-32602, "Invalid pagination cursor", ""), dispatch(t, s, compReq("prompts/list", `"cursor":"x`+c1+`"`)))
		s.RemovePrompts("test_simple_prompt")
		assert.Equal(t, compErr(-32602, "Pagination cursor has expired", ""), dispatch(t, s, compReq("prompts/list", `"cursor":"`+c2+`"`)))
	})
}

func TestPromptsGet(t *testing.T) {
	handler := func(res PromptResult, err error) PromptHandler {
		return func(context.Context, *Request, map[string]string) (PromptResult, error) { return res, err }
	}
	withText := func(text string, m json.RawMessage) Content {
		c := Text(text)
		c.Meta = m
		return c
	}
	tests := []struct {
		name   string
		setup  func(*Server)
		params string
		want   string
		log    string
	}{{
		name:   "simple, no arguments member",
		params: `"name":"test_simple_prompt"`,
		want:   compOK(`"resultType":"complete","description":"A simple prompt","messages":[{"role":"user","content":{"type":"text","text":"This is a simple prompt for testing."}}]`),
	}, {
		name:   "simple, empty arguments",
		params: `"name":"test_simple_prompt","arguments":{}`,
		want:   compOK(`"resultType":"complete","description":"A simple prompt","messages":[{"role":"user","content":{"type":"text","text":"This is a simple prompt for testing."}}]`),
	}, {
		name:   "with arguments",
		params: `"name":"test_prompt_with_arguments","arguments":{"arg1":"testValue1","arg2":"testValue2"}`,
		want:   compOK(`"resultType":"complete","description":"A prompt with arguments","messages":[{"role":"user","content":{"type":"text","text":"Prompt with arguments: arg1='testValue1', arg2='testValue2'"}}]`),
	}, {
		name:   "escaped argument names and values, undeclared ones passed along",
		params: `"name":"test_prompt_with_arguments","arguments":{"arg\u0031":"a\"b","arg2":"\u00e9\n","extra":"x"}`,
		want:   compOK(`"resultType":"complete","description":"A prompt with arguments","messages":[{"role":"user","content":{"type":"text","text":"Prompt with arguments: arg1='a\"b', arg2='é\n'"}}]`),
	}, {
		name:   "embedded resource",
		params: `"name":"test_prompt_with_embedded_resource","arguments":{"resourceUri":"test://example-resource"}`,
		want: compOK(`"resultType":"complete","description":"A prompt with an embedded resource","messages":[` +
			`{"role":"user","content":{"type":"resource","resource":{"uri":"test://example-resource","mimeType":"text/plain","text":"Embedded resource content for testing."}}},` +
			`{"role":"user","content":{"type":"text","text":"Please process the embedded resource above."}}]`),
	}, {
		name:   "image",
		params: `"name":"test_prompt_with_image"`,
		want: compOK(`"resultType":"complete","description":"A prompt with an image","messages":[` +
			`{"role":"user","content":{"type":"image","data":"iVBORw==","mimeType":"image/png"}},` +
			`{"role":"user","content":{"type":"text","text":"Please analyze the image above."}}]`),
	}, {
		name: "own description, result _meta, every role and content kind, compacted content _meta",
		setup: func(s *Server) {
			s.AddPrompt(Prompt{Name: "mixed", Description: "Listed"}, handler(PromptResult{
				Description: "Rendered",
				Messages: []PromptMessage{
					AssistantMessage(withText("hi", json.RawMessage("{ \"a\" :\n 1 }"))),
					UserMessage(Audio([]byte("RIFF"), "audio/wav")),
					{Role: "user", Content: ResourceLink("test://static-text", "static-text", "text/plain")},
					UserMessage(Embedded(ResourceContents{URI: "b://1", Blob: []byte{1, 2}, Meta: json.RawMessage(`{ "k": [] }`)})),
				},
				Meta: json.RawMessage(`{"vendor.example/x": 1}`),
			}, nil))
		},
		params: `"name":"mixed"`,
		want: `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","description":"Rendered","messages":[` +
			`{"role":"assistant","content":{"type":"text","text":"hi","_meta":{"a":1}}},` +
			`{"role":"user","content":{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}},` +
			`{"role":"user","content":{"type":"resource_link","uri":"test://static-text","name":"static-text","mimeType":"text/plain"}},` +
			`{"role":"user","content":{"type":"resource","resource":{"uri":"b://1","blob":"AQI=","_meta":{"k":[]}}}}` +
			`],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"test","version":"1.0.0"},"vendor.example/x":1}}}`,
	}, {
		name: "no messages, no description",
		setup: func(s *Server) {
			s.AddPrompt(Prompt{Name: "empty"}, handler(PromptResult{}, nil))
		},
		params: `"name":"empty"`,
		want:   compOK(`"resultType":"complete","messages":[]`),
	}, {
		name:   "missing one required argument",
		params: `"name":"test_prompt_with_arguments","arguments":{"arg1":"x"}`,
		want:   compErr(-32602, "Missing required prompt arguments", `{"missing":["arg2"]}`),
	}, {
		name:   "missing every required argument",
		params: `"name":"test_prompt_with_arguments"`,
		want:   compErr(-32602, "Missing required prompt arguments", `{"missing":["arg1","arg2"]}`),
	}, {
		name:   "unknown prompt",
		params: `"name":"nope"`,
		want:   compErr(-32602, "Unknown prompt: nope", ""),
	}, {
		name:   "unknown prompt, name escaped in the message",
		params: `"name":"a\"b"`,
		want:   compErr(-32602, `Unknown prompt: a\"b`, ""),
	}, {
		name:   "name absent",
		params: `"arguments":{}`,
		want:   compErr(-32602, "Invalid params: name must be a non-empty string", ""),
	}, {
		name:   "name empty",
		params: `"name":""`,
		want:   compErr(-32602, "Invalid params: name must be a non-empty string", ""),
	}, {
		name:   "name not a string",
		params: `"name":7`,
		want:   compErr(-32602, "Invalid params: name must be a non-empty string", ""),
	}, {
		name:   "argument not a string",
		params: `"name":"test_prompt_with_arguments","arguments":{"arg1":1,"arg2":"x"}`,
		want:   compErr(-32602, "Invalid params: arguments must be an object of strings", ""),
	}, {
		name:   "argument null",
		params: `"name":"test_prompt_with_arguments","arguments":{"arg1":"x","arg2":null}`,
		want:   compErr(-32602, "Invalid params: arguments must be an object of strings", ""),
	}, {
		name:   "arguments an array",
		params: `"name":"test_simple_prompt","arguments":["x"]`,
		want:   compErr(-32602, "Invalid params: arguments must be an object of strings", ""),
	}, {
		name:   "arguments null",
		params: `"name":"test_simple_prompt","arguments":null`,
		want:   compErr(-32602, "Invalid params: arguments must be an object of strings", ""),
	}, {
		name:   "arguments checked before the lookup",
		params: `"name":"nope","arguments":"x"`,
		want:   compErr(-32602, "Invalid params: arguments must be an object of strings", ""),
	}, {
		name: "invalid role",
		setup: func(s *Server) {
			s.AddPrompt(Prompt{Name: "bad"}, handler(PromptResult{Messages: []PromptMessage{{Role: "system", Content: Text("x")}}}, nil))
		},
		params: `"name":"bad"`,
		want:   compErr(-32603, "Server produced an invalid result", ""),
		log:    `msg="fastmcp: prompt returned an invalid result" prompt=bad why=role err="message 0: role \"system\""`,
	}, {
		name: "invalid result _meta",
		setup: func(s *Server) {
			s.AddPrompt(Prompt{Name: "bad"}, handler(PromptResult{Meta: json.RawMessage(`[]`)}, nil))
		},
		params: `"name":"bad"`,
		want:   compErr(-32603, "Server produced an invalid result", ""),
	}, {
		name: "invalid content _meta",
		setup: func(s *Server) {
			s.AddPrompt(Prompt{Name: "bad"}, handler(PromptResult{Messages: []PromptMessage{UserMessage(withText("x", json.RawMessage(`{`)))}}, nil))
		},
		params: `"name":"bad"`,
		want:   compErr(-32603, "Server produced an invalid result", ""),
	}, {
		name: "handler *Error",
		setup: func(s *Server) {
			s.AddPrompt(Prompt{Name: "bad"}, handler(PromptResult{}, NewError(CodeInvalidParams, "Bad topic", nil)))
		},
		params: `"name":"bad"`,
		want:   compErr(-32602, "Bad topic", ""),
	}, {
		name: "handler error",
		setup: func(s *Server) {
			s.AddPrompt(Prompt{Name: "bad"}, handler(PromptResult{}, errors.New("template store down")))
		},
		params: `"name":"bad"`,
		want:   compErr(-32603, "Prompt failed", ""),
		log:    `msg="fastmcp: prompt failed" prompt=bad err="template store down"`,
	}, {
		name: "handler panic",
		setup: func(s *Server) {
			s.AddPrompt(Prompt{Name: "bad"}, func(context.Context, *Request, map[string]string) (PromptResult, error) { panic("oops") })
		},
		params: `"name":"bad"`,
		want:   compErr(-32603, "Handler raised an exception", ""),
		log:    `msg="fastmcp: prompt panicked" prompt=bad panic=oops stack=`,
	}, {
		name: "wrapper refusal",
		setup: func(s *Server) {
			s.AddPrompt(Prompt{Name: "limited", Wrap: []Wrapper{RateLimit(RateLimitOptions{Limit: 1})}}, handler(PromptResult{}, nil))
			dispatch(t, s, compReq("prompts/get", `"name":"limited"`))
		},
		params: `"name":"limited"`,
		want:   compErr(-32603, "Component rate limit reached", ""),
	}, {
		name: "wrapper timeout",
		setup: func(s *Server) {
			s.AddPrompt(Prompt{Name: "slow", Wrap: []Wrapper{Timeout(TimeoutOptions{Timeout: 10 * time.Millisecond})}},
				func(ctx context.Context, _ *Request, _ map[string]string) (PromptResult, error) {
					<-ctx.Done()
					return PromptResult{Description: "late"}, ctx.Err()
				})
		},
		params: `"name":"slow"`,
		want:   compErr(-32603, "Component timed out", ""),
	}, {
		name: "wrapped handler that succeeds, required arguments checked first",
		setup: func(s *Server) {
			s.AddPrompt(Prompt{Name: "wrapped", Arguments: []PromptArgument{{Name: "x", Required: true}},
				Wrap: []Wrapper{Concurrency(ConcurrencyOptions{}), Timeout(TimeoutOptions{})}},
				func(_ context.Context, r *Request, args map[string]string) (PromptResult, error) {
					return PromptResult{Messages: []PromptMessage{UserMessage(Text(r.Method() + " " + args["x"]))}}, nil
				})
		},
		params: `"name":"wrapped","arguments":{"x":"1"}`,
		want:   compOK(`"resultType":"complete","messages":[{"role":"user","content":{"type":"text","text":"prompts/get 1"}}]`),
	}, {
		name:   "input required without the client capability",
		params: `"name":"test_input_required_result_prompt"`,
		want:   `{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"elicitation":{"form":{}}}}}}`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, log := newLoggedServer(t, nil)
			addTestPrompts(s)
			if tc.setup != nil {
				tc.setup(s)
			}
			got := dispatch(t, s, compReq("prompts/get", tc.params))
			assert.Equal(t, tc.want, got)
			requireWire(t, "GetPromptResult", got)
			assert.Contains(t, log.String(), tc.log)
		})
	}
}

func TestPromptRegistrationPanics(t *testing.T) {
	noop := func(context.Context, *Request, map[string]string) (PromptResult, error) { return PromptResult{}, nil }
	tests := []struct {
		name string
		add  func(*Server)
		want string
	}{
		{"nil handler", func(s *Server) { s.AddPrompt(Prompt{Name: "p"}, nil) }, "fastmcp: prompt p: nil handler"},
		{"no name", func(s *Server) { s.AddPrompt(Prompt{}, noop) }, "fastmcp: prompt : the name must be a non-empty UTF-8 string"},
		{"name not UTF-8", func(s *Server) { s.AddPrompt(Prompt{Name: "\xff"}, noop) }, "fastmcp: prompt \xff: the name must be a non-empty UTF-8 string"},
		{"argument without a name", func(s *Server) {
			s.AddPrompt(Prompt{Name: "p", Arguments: []PromptArgument{{Name: "a"}, {}}}, noop)
		}, "fastmcp: prompt p: argument 1: the name must be a non-empty UTF-8 string"},
		{"argument declared twice", func(s *Server) {
			s.AddPrompt(Prompt{Name: "p", Arguments: []PromptArgument{{Name: "a"}, {Name: "a", Required: true}}}, noop)
		}, `fastmcp: prompt p: argument "a" is declared twice`},
		{"meta not an object", func(s *Server) { s.AddPrompt(Prompt{Name: "p", Meta: json.RawMessage(`1`)}, noop) }, "fastmcp: prompt p: meta: not a JSON object"},
		{"invalid wrapper", func(s *Server) {
			s.AddPrompt(Prompt{Name: "p", Wrap: []Wrapper{Timeout(TimeoutOptions{Timeout: -1})}}, noop)
		}, "fastmcp: prompt p: wrapper Timeout: Timeout -1ns is negative"},
		{"duplicate", func(s *Server) {
			s.AddPrompt(Prompt{Name: "p"}, noop)
			s.AddPrompt(Prompt{Name: "p"}, noop)
		}, "fastmcp: prompt p is already registered"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newLoggedServer(t, nil)
			require.PanicsWithValue(t, tc.want, func() { tc.add(s) })
			s.AddPrompt(Prompt{Name: "after"}, noop)
			assert.Equal(t, compOK(`"resultType":"complete","messages":[]`), dispatch(t, s, compReq("prompts/get", `"name":"after"`)))
		})
	}
}

// metaElicit is a request _meta whose client declares form elicitation.
const metaElicit = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`

// mrtrReq is a request with the given id and params members whose client can elicit.
func mrtrReq(id int, method, params string) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"` + method + `","params":{` + params + `,` + metaElicit + `}}`
}

func TestPromptInputRequiredRoundTrip(t *testing.T) {
	s := newTestServer(t, nil)
	addTestPrompts(s)
	ask := `"inputRequests":{"user_context":{"method":"elicitation/create","params":{"mode":"form","message":"What context should the prompt use?",` +
		`"requestedSchema":{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}}}}`

	round1 := dispatch(t, s, mrtrReq(1, "prompts/get", `"name":"test_input_required_result_prompt"`))
	state := resultMember(t, round1, "requestState")
	require.NotEmpty(t, state)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required",`+ask+`,"requestState":"`+state+`",`+serverInfoMeta+`}}`, round1)
	requireWire(t, "GetPromptResult", round1)

	answer := `"inputResponses":{"user_context":{"action":"accept","content":{"context":"test context"}}}`
	round2 := dispatch(t, s, mrtrReq(2, "prompts/get", `"name":"test_input_required_result_prompt",`+answer+`,"requestState":"`+state+`"`))
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","description":"A prompt that asks for context",`+
		`"messages":[{"role":"user","content":{"type":"text","text":"Prompt with context: test context"}}],`+serverInfoMeta+`}}`, round2)
	requireWire(t, "GetPromptResult", round2)

	// The same retry with the arguments sent as an empty object binds to the same state.
	round2b := dispatch(t, s, mrtrReq(3, "prompts/get", `"name":"test_input_required_result_prompt","arguments":{},`+answer+`,"requestState":"`+state+`"`))
	assert.Contains(t, round2b, `"text":"Prompt with context: test context"`)

	// A retry without the answer is asked again.
	again := dispatch(t, s, mrtrReq(4, "prompts/get", `"name":"test_input_required_result_prompt","requestState":"`+state+`"`))
	assert.Contains(t, again, `"resultType":"input_required",`+ask)

	invalid := func(id int) string {
		return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"error":{"code":-32602,"message":"Invalid or expired request state"}}`
	}
	tests := []struct {
		name, params string
	}{
		{"tampered state", `"name":"test_input_required_result_prompt",` + answer + `,"requestState":"` + state + `-TAMPERED"`},
		{"state of another prompt", `"name":"test_simple_prompt",` + answer + `,"requestState":"` + state + `"`},
		{"other arguments", `"name":"test_input_required_result_prompt","arguments":{"x":"y"},` + answer + `,"requestState":"` + state + `"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := dispatch(t, s, mrtrReq(5, "prompts/get", tc.params))
			assert.Equal(t, invalid(5), got)
			requireWire(t, "GetPromptResult", got)
		})
	}
	t.Run("malformed answer", func(t *testing.T) {
		got := dispatch(t, s, mrtrReq(6, "prompts/get", `"name":"test_input_required_result_prompt","inputResponses":{"user_context":{"action":"maybe"}},"requestState":"`+state+`"`))
		assert.Equal(t, `{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"Invalid params: malformed input response"}}`, got)
	})
}
