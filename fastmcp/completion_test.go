package fastmcp

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompletionComplete(t *testing.T) {
	completer := func(res Completion, err error) CompletionHandler {
		return func(context.Context, *Request, string, string, map[string]string) (Completion, error) {
			return res, err
		}
	}
	noPrompt := func(context.Context, *Request, map[string]string) (PromptResult, error) { return PromptResult{}, nil }
	addPrompt := func(s *Server, name string, c CompletionHandler, wrap ...Wrapper) {
		s.AddPrompt(Prompt{Name: name, Arguments: []PromptArgument{{Name: "a"}}, Complete: c, Wrap: wrap}, noPrompt)
	}
	promptRef := func(name, arg, value string) string {
		return `"ref":{"type":"ref/prompt","name":"` + name + `"},"argument":{"name":"` + arg + `","value":"` + value + `"}`
	}
	hundredOne := make([]string, MaxCompletionValues+1)
	for i := range hundredOne {
		hundredOne[i] = strconv.Itoa(i)
	}
	tests := []struct {
		name   string
		setup  func(*Server)
		params string
		want   string
		log    string
	}{{
		name:   "prompt argument (the conformance request)",
		params: promptRef("test_prompt_with_arguments", "arg1", "test"),
		want:   compOK(`"resultType":"complete","completion":{"values":["testValue1","testValue2"],"total":2}`),
	}, {
		name:   "prompt argument, no match",
		params: promptRef("test_prompt_with_arguments", "arg2", "zzz"),
		want:   compOK(`"resultType":"complete","completion":{"values":[]}`),
	}, {
		name:   "template variable",
		params: `"ref":{"type":"ref/resource","uri":"test://template/{id}/data"},"argument":{"name":"id","value":"12"}`,
		want:   compOK(`"resultType":"complete","completion":{"values":["123","124"],"total":2}`),
	}, {
		name: "what the handler sees: argument, value, context, method",
		setup: func(s *Server) {
			addPrompt(s, "echo", func(_ context.Context, r *Request, argument, value string, c map[string]string) (Completion, error) {
				return Completion{Values: []string{r.Method(), argument, value, c["b"], strconv.Itoa(len(c))}, Total: 9, HasMore: true}, nil
			})
		},
		params: `"ref":{"type":"ref/prompt","name":"echo","title":"Echo"},"argument":{"name":"\u0061","value":"x\"y"},"context":{"arguments":{"b":"B","c":""}}`,
		want:   compOK(`"resultType":"complete","completion":{"values":["completion/complete","a","x\"y","B","2"],"total":9,"hasMore":true}`),
	}, {
		name: "context without arguments",
		setup: func(s *Server) {
			addPrompt(s, "echo", func(_ context.Context, _ *Request, _, _ string, c map[string]string) (Completion, error) {
				return Completion{Values: []string{strconv.FormatBool(c == nil)}}, nil
			})
		},
		params: promptRef("echo", "a", "") + `,"context":{}`,
		want:   compOK(`"resultType":"complete","completion":{"values":["true"]}`),
	}, {
		name:   "unknown prompt",
		params: promptRef("nope", "a", ""),
		want:   compErr(-32602, "Unknown prompt: nope", ""),
	}, {
		name:   "unknown template",
		params: `"ref":{"type":"ref/resource","uri":"test://other/{id}"},"argument":{"name":"id","value":""}`,
		want:   compErr(-32602, "Unknown resource template: test://other/{id}", ""),
	}, {
		name:   "a resource URI is no template",
		params: `"ref":{"type":"ref/resource","uri":"test://static-text"},"argument":{"name":"id","value":""}`,
		want:   compErr(-32602, "Unknown resource template: test://static-text", ""),
	}, {
		name:   "prompt argument not declared",
		params: promptRef("test_prompt_with_arguments", "arg3", ""),
		want:   compErr(-32602, "Argument does not support completion", `{"argument":"arg3","referenceType":"ref/prompt"}`),
	}, {
		name:   "prompt without a completion handler",
		params: promptRef("test_prompt_with_embedded_resource", "resourceUri", ""),
		want:   compErr(-32602, "Argument does not support completion", `{"argument":"resourceUri","referenceType":"ref/prompt"}`),
	}, {
		name:   "template variable not declared",
		params: `"ref":{"type":"ref/resource","uri":"test://template/{id}/data"},"argument":{"name":"i\"d","value":""}`,
		want:   compErr(-32602, "Argument does not support completion", `{"argument":"i\"d","referenceType":"ref/resource"}`),
	}, {
		name: "template without a completion handler",
		setup: func(s *Server) {
			s.AddResourceTemplate(ResourceTemplate{URITemplate: "n://{x}", Name: "n"}, nil2Template)
		},
		params: `"ref":{"type":"ref/resource","uri":"n://{x}"},"argument":{"name":"x","value":""}`,
		want:   compErr(-32602, "Argument does not support completion", `{"argument":"x","referenceType":"ref/resource"}`),
	}, {
		name:   "ref absent",
		params: `"argument":{"name":"a","value":""}`,
		want:   compErr(-32602, "Invalid params: ref must be a ref/prompt with a name or a ref/resource with a uri", ""),
	}, {
		name:   "ref of another type",
		params: `"ref":{"type":"ref/tool","name":"x"},"argument":{"name":"a","value":""}`,
		want:   compErr(-32602, "Invalid params: ref must be a ref/prompt with a name or a ref/resource with a uri", ""),
	}, {
		name:   "ref type not a string",
		params: `"ref":{"type":1,"name":"x"},"argument":{"name":"a","value":""}`,
		want:   compErr(-32602, "Invalid params: ref must be a ref/prompt with a name or a ref/resource with a uri", ""),
	}, {
		name:   "ref/prompt without a name",
		params: `"ref":{"type":"ref/prompt","uri":"x://y"},"argument":{"name":"a","value":""}`,
		want:   compErr(-32602, "Invalid params: ref must be a ref/prompt with a name or a ref/resource with a uri", ""),
	}, {
		name:   "ref/resource with an empty uri",
		params: `"ref":{"type":"ref/resource","uri":""},"argument":{"name":"a","value":""}`,
		want:   compErr(-32602, "Invalid params: ref must be a ref/prompt with a name or a ref/resource with a uri", ""),
	}, {
		name:   "argument absent",
		params: `"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"}`,
		want:   compErr(-32602, "Invalid params: argument must have a name and a value, both strings", ""),
	}, {
		name:   "argument value not a string",
		params: `"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":1}`,
		want:   compErr(-32602, "Invalid params: argument must have a name and a value, both strings", ""),
	}, {
		name:   "argument value absent",
		params: `"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1"}`,
		want:   compErr(-32602, "Invalid params: argument must have a name and a value, both strings", ""),
	}, {
		name:   "context not an object",
		params: promptRef("test_prompt_with_arguments", "arg1", "") + `,"context":[]`,
		want:   compErr(-32602, "Invalid params: context.arguments must be an object of strings", ""),
	}, {
		name:   "context arguments not strings",
		params: promptRef("test_prompt_with_arguments", "arg1", "") + `,"context":{"arguments":{"arg2":2}}`,
		want:   compErr(-32602, "Invalid params: context.arguments must be an object of strings", ""),
	}, {
		name:   "context arguments not an object",
		params: promptRef("test_prompt_with_arguments", "arg1", "") + `,"context":{"arguments":"x"}`,
		want:   compErr(-32602, "Invalid params: context.arguments must be an object of strings", ""),
	}, {
		name:   "too many values",
		setup:  func(s *Server) { addPrompt(s, "c", completer(Completion{Values: hundredOne}, nil)) },
		params: promptRef("c", "a", ""),
		want:   compErr(-32603, "Server produced an invalid result", ""),
		log:    `msg="fastmcp: completion handler returned an invalid result" component=c values=101 total=0`,
	}, {
		name:   "total below the values",
		setup:  func(s *Server) { addPrompt(s, "c", completer(Completion{Values: []string{"a", "b"}, Total: 1}, nil)) },
		params: promptRef("c", "a", ""),
		want:   compErr(-32603, "Server produced an invalid result", ""),
	}, {
		name:   "negative total",
		setup:  func(s *Server) { addPrompt(s, "c", completer(Completion{Total: -1}, nil)) },
		params: promptRef("c", "a", ""),
		want:   compErr(-32603, "Server produced an invalid result", ""),
	}, {
		name: "exactly the maximum",
		setup: func(s *Server) {
			addPrompt(s, "c", completer(Completion{Values: hundredOne[:MaxCompletionValues], Total: 100}, nil))
		},
		params: promptRef("c", "a", ""),
		want:   compOK(`"resultType":"complete","completion":{"values":["` + strings.Join(hundredOne[:MaxCompletionValues], `","`) + `"],"total":100}`),
	}, {
		name: "input required is not permitted",
		setup: func(s *Server) {
			addPrompt(s, "c", completer(Completion{}, &InputRequired{Requests: map[string]InputRequest{"r": ListRoots()}}))
		},
		params: promptRef("c", "a", ""),
		want:   compErr(-32603, "Input-required result is not permitted for this operation", ""),
	}, {
		name: "handler *Error",
		setup: func(s *Server) {
			addPrompt(s, "c", completer(Completion{}, NewError(CodeInvalidParams, "Bad prefix", json.RawMessage(`{"p":1}`))))
		},
		params: promptRef("c", "a", ""),
		want:   compErr(-32602, "Bad prefix", `{"p":1}`),
	}, {
		name:   "handler error",
		setup:  func(s *Server) { addPrompt(s, "c", completer(Completion{}, errors.New("index down"))) },
		params: promptRef("c", "a", ""),
		want:   compErr(-32603, "Completion failed", ""),
		log:    `msg="fastmcp: completion failed" component=c argument=a err="index down"`,
	}, {
		name: "handler panic",
		setup: func(s *Server) {
			addPrompt(s, "c", func(context.Context, *Request, string, string, map[string]string) (Completion, error) { panic("oops") })
		},
		params: promptRef("c", "a", ""),
		want:   compErr(-32603, "Handler raised an exception", ""),
		log:    `msg="fastmcp: completion handler panicked" component=c panic=oops stack=`,
	}, {
		name: "the component's wrappers apply",
		setup: func(s *Server) {
			addPrompt(s, "c", completer(Completion{Values: []string{"v"}}, nil), RateLimit(RateLimitOptions{Limit: 1}))
			dispatch(t, s, compReq("completion/complete", promptRef("c", "a", "")))
		},
		params: promptRef("c", "a", ""),
		want:   compErr(-32603, "Component rate limit reached", ""),
	}, {
		name: "wrapper timeout",
		setup: func(s *Server) {
			addPrompt(s, "c", func(ctx context.Context, _ *Request, _, _ string, _ map[string]string) (Completion, error) {
				<-ctx.Done()
				return Completion{Values: []string{"late"}}, ctx.Err()
			}, Timeout(TimeoutOptions{Timeout: 10 * time.Millisecond}))
		},
		params: promptRef("c", "a", ""),
		want:   compErr(-32603, "Component timed out", ""),
	}, {
		name: "wrapped handler that succeeds",
		setup: func(s *Server) {
			s.AddResourceTemplate(ResourceTemplate{URITemplate: "w://{x}/{y}", Name: "w",
				Wrap: []Wrapper{Timeout(TimeoutOptions{})},
				Complete: func(_ context.Context, _ *Request, argument, value string, c map[string]string) (Completion, error) {
					return Completion{Values: []string{argument + "=" + value + "," + c["x"]}}, nil
				}}, nil2Template)
		},
		params: `"ref":{"type":"ref/resource","uri":"w://{x}/{y}"},"argument":{"name":"y","value":"2"},"context":{"arguments":{"x":"1"}}`,
		want:   compOK(`"resultType":"complete","completion":{"values":["y=2,1"]}`),
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, log := newLoggedServer(t, nil)
			addTestResources(s)
			addTestPrompts(s)
			if tc.setup != nil {
				tc.setup(s)
			}
			got := dispatch(t, s, compReq("completion/complete", tc.params))
			assert.Equal(t, tc.want, got)
			requireWire(t, "CompleteResult", got)
			assert.Contains(t, log.String(), tc.log)
		})
	}
}

func TestCompletePrefix(t *testing.T) {
	many := make([]string, 150)
	for i := range many {
		many[i] = "v" + strconv.Itoa(i)
	}
	tests := []struct {
		name       string
		candidates []string
		prefix     string
		want       Completion
	}{
		{"none", nil, "", Completion{}},
		{"no match", []string{"a", "b"}, "c", Completion{}},
		{"every candidate for an empty prefix", []string{"b", "a"}, "", Completion{Values: []string{"b", "a"}, Total: 2}},
		{"prefix, order kept", []string{"ab", "b", "aa", "a"}, "a", Completion{Values: []string{"ab", "aa", "a"}, Total: 3}},
		{"capped", many, "v", Completion{Values: many[:MaxCompletionValues], Total: 150, HasMore: true}},
		{"capped exactly", many[:100], "", Completion{Values: many[:100], Total: 100}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, CompletePrefix(tc.candidates, tc.prefix))
		})
	}
}

func TestCompletionCapabilityFollowsRegistration(t *testing.T) {
	s := newTestServer(t, nil)
	addTestResources(s) // the template has a completion handler
	got := dispatch(t, s, compReq("completion/complete", `"ref":{"type":"ref/resource","uri":"test://template/{id}/data"},"argument":{"name":"id","value":"2"}`))
	assert.Equal(t, compOK(`"resultType":"complete","completion":{"values":["200"],"total":1}`), got)
	require.NotContains(t, dispatch(t, s, compReq("server/discover", "")), `"prompts"`)
	// The capability is catalog-wide and stays once advertised, like the others.
	s.RemoveResourceTemplates("test://template/{id}/data")
	assert.Equal(t, compErr(-32602, "Unknown resource template: test://template/{id}/data", ""),
		dispatch(t, s, compReq("completion/complete", `"ref":{"type":"ref/resource","uri":"test://template/{id}/data"},"argument":{"name":"id","value":"2"}`)))
}
