package fastmcp

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Authorization of resources, resource templates, prompts and completion.

type authzCall struct {
	phase  Phase
	method string
	c      Component
}

// componentPolicy refuses components by name: "secret…" with ErrRefused, "custom" with its own
// error; "fault" fails and "boom" panics (policy faults).
type componentPolicy struct {
	mu    sync.Mutex
	calls []authzCall
}

func (p *componentPolicy) Authorize(_ context.Context, phase Phase, method string, c Component) error {
	p.mu.Lock()
	p.calls = append(p.calls, authzCall{phase, method, c})
	p.mu.Unlock()
	switch {
	case strings.HasPrefix(c.Name, "secret"):
		return ErrRefused
	case c.Name == "custom":
		return NewError(-31001, "Upgrade your plan", nil)
	case c.Name == "fault":
		return errors.New("policy store down")
	case c.Name == "boom":
		panic("policy bug")
	}
	return nil
}

func (p *componentPolicy) take() []authzCall {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.calls
	p.calls = nil
	return out
}

// addAuthzComponents registers open and secret components, counting handler runs.
func addAuthzComponents(s *Server, runs *atomic.Int32) {
	read := func(context.Context, *Request, string) ([]ResourceContents, error) {
		runs.Add(1)
		return []ResourceContents{{Text: "x"}}, nil
	}
	readT := func(context.Context, *Request, string, map[string]string) ([]ResourceContents, error) {
		runs.Add(1)
		return []ResourceContents{{Text: "x"}}, nil
	}
	get := func(context.Context, *Request, map[string]string) (PromptResult, error) {
		runs.Add(1)
		return PromptResult{}, nil
	}
	complete := func(context.Context, *Request, string, string, map[string]string) (Completion, error) {
		runs.Add(1)
		return Completion{Values: []string{"v"}}, nil
	}
	s.AddResource(Resource{URI: "a://open", Name: "open"}, read)
	s.AddResource(Resource{URI: "a://secret", Name: "secret"}, read)
	s.AddResource(Resource{URI: "a://custom", Name: "custom"}, read)
	s.AddResourceTemplate(ResourceTemplate{URITemplate: "t://open/{x}", Name: "open-template", Complete: complete}, readT)
	s.AddResourceTemplate(ResourceTemplate{URITemplate: "t://secret/{x}", Name: "secret-template", Complete: complete}, readT)
	s.AddPrompt(Prompt{Name: "open", Complete: complete, Arguments: []PromptArgument{{Name: "x"}}}, get)
	s.AddPrompt(Prompt{Name: "secret", Complete: complete, Arguments: []PromptArgument{{Name: "x", Required: true}}}, get)
}

func TestComponentAuthorizationDiscovery(t *testing.T) {
	policy := &componentPolicy{}
	s := newTestServer(t, &Config{Authorizer: policy, PageSize: 1})
	var runs atomic.Int32
	addAuthzComponents(s, &runs)

	tests := []struct {
		method, want string
		calls        []authzCall
	}{{
		method: "resources/list",
		want:   compOK(`"resultType":"complete","resources":[{"uri":"a://open","name":"open"}],"ttlMs":0,"cacheScope":"private"`),
		calls: []authzCall{
			{PhaseDiscovery, "resources/list", Component{Kind: "resource", Name: "custom", URI: "a://custom"}},
			{PhaseDiscovery, "resources/list", Component{Kind: "resource", Name: "open", URI: "a://open"}},
			{PhaseDiscovery, "resources/list", Component{Kind: "resource", Name: "secret", URI: "a://secret"}},
		},
	}, {
		method: "resources/templates/list",
		want:   compOK(`"resultType":"complete","resourceTemplates":[{"uriTemplate":"t://open/{x}","name":"open-template"}],"ttlMs":0,"cacheScope":"private"`),
		calls: []authzCall{
			{PhaseDiscovery, "resources/templates/list", Component{Kind: "resource_template", Name: "open-template", URI: "t://open/{x}"}},
			{PhaseDiscovery, "resources/templates/list", Component{Kind: "resource_template", Name: "secret-template", URI: "t://secret/{x}"}},
		},
	}, {
		method: "prompts/list",
		want:   compOK(`"resultType":"complete","prompts":[{"name":"open","arguments":[{"name":"x"}]}],"ttlMs":0,"cacheScope":"private"`),
		calls: []authzCall{
			{PhaseDiscovery, "prompts/list", Component{Kind: "prompt", Name: "open"}},
			{PhaseDiscovery, "prompts/list", Component{Kind: "prompt", Name: "secret"}},
		},
	}}
	for _, tc := range tests {
		t.Run(tc.method, func(t *testing.T) {
			// Filtering happens before paging: with one item per page and one visible item,
			// there is no next page.
			got := dispatch(t, s, compReq(tc.method, ""))
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.calls, policy.take())
		})
	}
	assert.Zero(t, runs.Load())

	t.Run("policy fault", func(t *testing.T) {
		for _, name := range []string{"fault", "boom"} {
			s, _ := newLoggedServer(t, &Config{Authorizer: &componentPolicy{}})
			s.AddResource(Resource{URI: "a://" + name, Name: name}, textContents("x"))
			s.AddResourceTemplate(ResourceTemplate{URITemplate: "t://{x}", Name: name}, nil2Template)
			s.AddPrompt(Prompt{Name: name}, func(context.Context, *Request, map[string]string) (PromptResult, error) { return PromptResult{}, nil })
			for _, m := range []string{"resources/list", "resources/templates/list", "prompts/list"} {
				assert.Equal(t, compErr(-32603, "Authorization policy failed", ""), dispatch(t, s, compReq(m, "")), name+" "+m)
			}
		}
	})
}

func TestComponentAuthorizationInvocation(t *testing.T) {
	const (
		denied = `{"jsonrpc":"2.0","id":1,"error":{"code":-32003,"message":"Access denied"}}`
		fault  = `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Authorization policy failed"}}`
	)
	tests := []struct {
		name, method, params string
		want, concealed      string
		call                 authzCall
	}{{
		name: "resource", method: "resources/read", params: `"uri":"a://secret"`,
		want: denied, concealed: compErr(-32602, "Resource not found", `{"uri":"a://secret"}`),
		call: authzCall{PhaseInvocation, "resources/read", Component{Kind: "resource", Name: "secret", URI: "a://secret"}},
	}, {
		name: "resource, the policy's own error", method: "resources/read", params: `"uri":"a://custom"`,
		want: `{"jsonrpc":"2.0","id":1,"error":{"code":-31001,"message":"Upgrade your plan"}}`, concealed: compErr(-32602, "Resource not found", `{"uri":"a://custom"}`),
		call: authzCall{PhaseInvocation, "resources/read", Component{Kind: "resource", Name: "custom", URI: "a://custom"}},
	}, {
		name: "template", method: "resources/read", params: `"uri":"t://secret/42"`,
		want: denied, concealed: compErr(-32602, "Resource not found", `{"uri":"t://secret/42"}`),
		call: authzCall{PhaseInvocation, "resources/read", Component{Kind: "resource_template", Name: "secret-template", URI: "t://secret/{x}", RequestedURI: "t://secret/42"}},
	}, {
		name: "prompt, refused before its arguments are checked", method: "prompts/get", params: `"name":"secret"`,
		want: denied, concealed: compErr(-32602, "Unknown prompt: secret", ""),
		call: authzCall{PhaseInvocation, "prompts/get", Component{Kind: "prompt", Name: "secret"}},
	}, {
		name: "prompt completion", method: "completion/complete", params: `"ref":{"type":"ref/prompt","name":"secret"},"argument":{"name":"x","value":""}`,
		want: denied, concealed: compErr(-32602, "Unknown prompt: secret", ""),
		call: authzCall{PhaseInvocation, "completion/complete", Component{Kind: "prompt", Name: "secret"}},
	}, {
		name: "prompt completion, refused before the argument is checked", method: "completion/complete", params: `"ref":{"type":"ref/prompt","name":"secret"},"argument":{"name":"undeclared","value":""}`,
		want: denied, concealed: compErr(-32602, "Unknown prompt: secret", ""),
		call: authzCall{PhaseInvocation, "completion/complete", Component{Kind: "prompt", Name: "secret"}},
	}, {
		name: "template completion", method: "completion/complete", params: `"ref":{"type":"ref/resource","uri":"t://secret/{x}"},"argument":{"name":"x","value":""}`,
		want: denied, concealed: compErr(-32602, "Unknown resource template: t://secret/{x}", ""),
		call: authzCall{PhaseInvocation, "completion/complete", Component{Kind: "resource_template", Name: "secret-template", URI: "t://secret/{x}"}},
	}}
	for _, conceal := range []bool{false, true} {
		for _, tc := range tests {
			t.Run(tc.name+map[bool]string{false: "", true: " concealed"}[conceal], func(t *testing.T) {
				policy := &componentPolicy{}
				s := newTestServer(t, &Config{Authorizer: policy, ConcealRefusals: conceal})
				var runs atomic.Int32
				addAuthzComponents(s, &runs)
				policy.take()
				want := tc.want
				if conceal {
					want = tc.concealed
				}
				got := dispatch(t, s, compReq(tc.method, tc.params))
				assert.Equal(t, want, got)
				assert.Equal(t, []authzCall{tc.call}, policy.take())
				assert.Zero(t, runs.Load(), "a refused component never runs")
			})
		}
	}

	t.Run("allowed", func(t *testing.T) {
		policy := &componentPolicy{}
		s := newTestServer(t, &Config{Authorizer: policy})
		var runs atomic.Int32
		addAuthzComponents(s, &runs)
		policy.take()
		for _, req := range []struct{ method, params string }{
			{"resources/read", `"uri":"a://open"`},
			{"resources/read", `"uri":"t://open/1"`},
			{"prompts/get", `"name":"open"`},
			{"completion/complete", `"ref":{"type":"ref/prompt","name":"open"},"argument":{"name":"x","value":""}`},
			{"completion/complete", `"ref":{"type":"ref/resource","uri":"t://open/{x}"},"argument":{"name":"x","value":""}`},
		} {
			assert.Contains(t, dispatch(t, s, compReq(req.method, req.params)), `"resultType":"complete"`, req)
		}
		assert.Equal(t, int32(5), runs.Load())
		assert.Equal(t, []authzCall{
			{PhaseInvocation, "resources/read", Component{Kind: "resource", Name: "open", URI: "a://open"}},
			{PhaseInvocation, "resources/read", Component{Kind: "resource_template", Name: "open-template", URI: "t://open/{x}", RequestedURI: "t://open/1"}},
			{PhaseInvocation, "prompts/get", Component{Kind: "prompt", Name: "open"}},
			{PhaseInvocation, "completion/complete", Component{Kind: "prompt", Name: "open"}},
			{PhaseInvocation, "completion/complete", Component{Kind: "resource_template", Name: "open-template", URI: "t://open/{x}"}},
		}, policy.take())
		// Unknown components are answered without asking the policy.
		assert.Equal(t, compErr(-32602, "Resource not found", `{"uri":"a://none"}`), dispatch(t, s, compReq("resources/read", `"uri":"a://none"`)))
		assert.Equal(t, compErr(-32602, "Unknown prompt: none", ""), dispatch(t, s, compReq("prompts/get", `"name":"none"`)))
		assert.Empty(t, policy.take())
	})

	t.Run("policy fault", func(t *testing.T) {
		for _, name := range []string{"fault", "boom"} {
			s, log := newLoggedServer(t, &Config{Authorizer: &componentPolicy{}})
			s.AddResource(Resource{URI: "a://x", Name: name}, textContents("x"))
			s.AddResourceTemplate(ResourceTemplate{URITemplate: "t://{x}", Name: name}, nil2Template)
			complete := func(context.Context, *Request, string, string, map[string]string) (Completion, error) {
				return Completion{}, nil
			}
			s.AddPrompt(Prompt{Name: name, Complete: complete, Arguments: []PromptArgument{{Name: "a"}}},
				func(context.Context, *Request, map[string]string) (PromptResult, error) { return PromptResult{}, nil })
			for _, req := range []struct{ method, params string }{
				{"resources/read", `"uri":"a://x"`},
				{"resources/read", `"uri":"t://1"`},
				{"prompts/get", `"name":"` + name + `"`},
				{"completion/complete", `"ref":{"type":"ref/prompt","name":"` + name + `"},"argument":{"name":"a","value":""}`},
			} {
				got := dispatch(t, s, compReq(req.method, req.params))
				assert.Equal(t, fault, got, name, req)
				requireWire(t, "ReadResourceResult", got)
			}
			require.Contains(t, log.String(), "fastmcp: authorization policy")
		}
	})
}

func TestResourceComponent(t *testing.T) {
	s := newTestServer(t, nil)
	var runs atomic.Int32
	addAuthzComponents(s, &runs)
	cat := s.catalog.Load()
	assert.Equal(t, Component{Kind: "resource", Name: "open", URI: "a://open"}, resourceComponent(cat, "a://open"))
	assert.Equal(t, Component{Kind: "resource_template", Name: "secret-template", URI: "t://secret/{x}", RequestedURI: "t://secret/9"},
		resourceComponent(cat, "t://secret/9"))
	assert.Equal(t, Component{Kind: "resource", URI: "a://none", RequestedURI: "a://none"}, resourceComponent(cat, "a://none"))
}
