package fastmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Helpers of the authorization tests (prefixed authz to stay clear of other areas' helpers).

// authzAsk is one question a policy was asked.
type authzAsk struct {
	Phase     Phase
	Method    string
	Component Component
	Principal string // "" when ctx carried no identity
	Identity  bool   // ctx carried an identity
}

// authzPolicy records what it is asked and answers with decide.
type authzPolicy struct {
	decide func(phase Phase, principal string, c Component) error
	mu     sync.Mutex
	asked  []authzAsk
}

func (p *authzPolicy) Authorize(ctx context.Context, phase Phase, method string, c Component) error {
	id := IdentityFrom(ctx)
	ask := authzAsk{Phase: phase, Method: method, Component: c, Identity: id != nil}
	if id != nil {
		ask.Principal = id.Principal
	}
	p.mu.Lock()
	p.asked = append(p.asked, ask)
	p.mu.Unlock()
	return p.decide(phase, ask.Principal, c)
}

func (p *authzPolicy) questions() []authzAsk {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]authzAsk(nil), p.asked...)
}

// authzDispatch serves one literal message for principal ("" for a context without identity).
func authzDispatch(s *Server, principal, msg string) string {
	ctx := context.Background()
	if principal != "" {
		ctx = WithIdentity(ctx, &Identity{Principal: principal})
	}
	return string(s.Dispatch(ctx, []byte(msg), nil))
}

// authzCursor returns the nextCursor of a list reply, "" when there is none.
func authzCursor(t *testing.T, reply string) string {
	t.Helper()
	var v struct {
		Result struct {
			NextCursor string `json:"nextCursor"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(reply), &v), reply)
	return v.Result.NextCursor
}

// authzTools registers tools named names, each listed as {"name":N,"inputSchema":{"type":"object"}}.
func authzTools(s *Server, names ...string) {
	for _, n := range names {
		wrapTool(s, n, wrapReturn(n+" ran"))
	}
}

const authzAccessDenied = `{"jsonrpc":"2.0","id":1,"error":{"code":-32003,"message":"Access denied"}}`
const authzPolicyFailed = `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Authorization policy failed"}}`

func TestAuthorizeDiscoveryFiltersBeforePaging(t *testing.T) {
	policy := &authzPolicy{decide: func(phase Phase, principal string, c Component) error {
		switch {
		case principal == "root":
			return nil
		case principal == "":
			return ErrRefused
		case c.Name == "b":
			return ErrRefused
		case c.Name == "d":
			return NewError(-32004, "Hidden", nil) // any refusal just leaves it out
		}
		return nil
	}}
	s, _ := wrapServer(t, &Config{Authorizer: policy, PageSize: 2})
	authzTools(s, "e", "d", "c", "b", "a")

	// alice sees a, c and e: two full pages of what she may see, not a page with a hole.
	page1 := authzDispatch(s, "alice", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+meta+`}}`)
	cursor := authzCursor(t, page1)
	require.NotEmpty(t, cursor)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[`+
		`{"name":"a","inputSchema":{"type":"object"}},{"name":"c","inputSchema":{"type":"object"}}],`+
		`"nextCursor":"`+cursor+`","ttlMs":0,"cacheScope":"private",`+serverInfoMeta+`}}`, page1)
	page2 := authzDispatch(s, "alice", `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"`+cursor+`",`+meta+`}}`)
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","tools":[`+
		`{"name":"e","inputSchema":{"type":"object"}}],"ttlMs":0,"cacheScope":"private",`+serverInfoMeta+`}}`, page2)

	// The cursor is alice's: bob cannot page with it.
	assert.Equal(t, `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid pagination cursor"}}`,
		authzDispatch(s, "bob", `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"`+cursor+`",`+meta+`}}`))

	// root sees all five, three pages.
	var names []string
	cursor = ""
	for range 3 {
		params := `{` + meta + `}`
		if cursor != "" {
			params = `{"cursor":"` + cursor + `",` + meta + `}`
		}
		reply := authzDispatch(s, "root", `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":`+params+`}`)
		var v struct {
			Result struct {
				Tools []struct{ Name string } `json:"tools"`
			} `json:"result"`
		}
		require.NoError(t, json.Unmarshal([]byte(reply), &v), reply)
		for _, tool := range v.Result.Tools {
			names = append(names, tool.Name)
		}
		cursor = authzCursor(t, reply)
	}
	assert.Equal(t, []string{"a", "b", "c", "d", "e"}, names)
	assert.Empty(t, cursor)

	// A caller refused everything gets an empty page: a refusal, not a fault.
	assert.Equal(t, `{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"private",`+serverInfoMeta+`}}`,
		authzDispatch(s, "", `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{`+meta+`}}`))

	asked := policy.questions()
	require.NotEmpty(t, asked)
	assert.Equal(t, authzAsk{Phase: PhaseDiscovery, Method: "tools/list", Component: Component{Kind: "tool", Name: "a"}, Principal: "alice", Identity: true}, asked[0])
	for _, a := range asked {
		assert.Equal(t, PhaseDiscovery, a.Phase)
	}
}

// TestAuthorizeIdentityFromContextOnly: the policy sees the identity the transport put in the
// context, never one claimed in the request's JSON.
func TestAuthorizeIdentityFromContextOnly(t *testing.T) {
	policy := &authzPolicy{decide: func(_ Phase, principal string, _ Component) error {
		if principal != "root" {
			return ErrRefused
		}
		return nil
	}}
	s, _ := wrapServer(t, &Config{Authorizer: policy})
	authzTools(s, "a")

	got := authzDispatch(s, "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","identity":{"principal":"root"},`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.example/principal":"root"}}}`)
	assert.Equal(t, authzAccessDenied, got)
	assert.Equal(t, []authzAsk{{Phase: PhaseInvocation, Method: "tools/call", Component: Component{Kind: "tool", Name: "a"}}}, policy.questions())

	assert.Equal(t, wrapOK(2, "a ran"), authzDispatch(s, "root", wrapCall(2, "a", `{}`)))
}

func TestAuthorizeInvocationRefusals(t *testing.T) {
	ownError := NewError(-32004, "Needs the admin role", json.RawMessage(`{"role":"admin"}`))
	const ownReply = `{"jsonrpc":"2.0","id":1,"error":{"code":-32004,"message":"Needs the admin role","data":{"role":"admin"}}}`
	const unknownReply = `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unknown tool: secret"}}`
	tests := []struct {
		name    string
		refuse  func() error
		conceal bool
		want    string
	}{
		{"own error", func() error { return ownError }, false, ownReply},
		{"own error wrapped", func() error { return fmt.Errorf("policy: %w", ownError) }, false, ownReply},
		{"ErrRefused", func() error { return ErrRefused }, false, authzAccessDenied},
		{"ErrRefused wrapped", func() error { return fmt.Errorf("not on the list: %w", ErrRefused) }, false, authzAccessDenied},
		{"concealed own error", func() error { return ownError }, true, unknownReply},
		{"concealed ErrRefused", func() error { return ErrRefused }, true, unknownReply},
		{"panic", func() error { panic("policy bug") }, false, authzPolicyFailed},
		{"panic concealed", func() error { panic("policy bug") }, true, authzPolicyFailed},
		{"plain error", func() error { return errors.New("directory unreachable") }, false, authzPolicyFailed},
		{"plain error concealed", func() error { return errors.New("directory unreachable") }, true, authzPolicyFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			policy := &authzPolicy{decide: func(phase Phase, _ string, c Component) error {
				if phase == PhaseInvocation && c.Name == "secret" {
					return tc.refuse()
				}
				return nil
			}}
			s, log := wrapServer(t, &Config{Authorizer: policy, ConcealRefusals: tc.conceal})
			tr := &wrapTrace{}
			called := false
			s.AddRawTool(Tool{
				Name:        "secret",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`),
				Wrap:        []Wrapper{tr.wrapper("outer")},
			}, func(context.Context, *Request, json.RawMessage) (ToolResult, error) {
				called = true
				return ToolResult{Text: "secret ran"}, nil
			})

			// The arguments are invalid: the refusal comes before argument validation.
			got := authzDispatch(s, "alice", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"secret","arguments":{"n":"x"},`+meta+`}}`)
			assert.Equal(t, tc.want, got)
			assert.False(t, called, "the handler never ran")
			assert.Empty(t, tr.get(), "no wrapper ran")
			if tc.want == authzPolicyFailed {
				assert.Contains(t, log.String(), "authorization policy", "the fault is logged")
				assert.NotContains(t, got, "policy bug")
				assert.NotContains(t, got, "unreachable")
			}
		})
	}
}

func TestAuthorizeInvocationAllowed(t *testing.T) {
	policy := &authzPolicy{decide: func(Phase, string, Component) error { return nil }}
	s, _ := wrapServer(t, &Config{Authorizer: policy})
	s.AddRawTool(Tool{
		Name:        "count",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`),
	}, wrapReturn("counted"))

	// Allowed, then validated.
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"Invalid arguments: /n: expected integer, got string"}],"isError":true,`+serverInfoMeta+`}}`,
		authzDispatch(s, "alice", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"n":"x"},`+meta+`}}`))
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"counted"}],`+serverInfoMeta+`}}`,
		authzDispatch(s, "alice", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count","arguments":{"n":2},`+meta+`}}`))

	invocation := authzAsk{Phase: PhaseInvocation, Method: "tools/call", Component: Component{Kind: "tool", Name: "count"}, Principal: "alice", Identity: true}
	assert.Equal(t, []authzAsk{invocation, invocation}, policy.questions())

	// An unknown tool is unknown before any policy is asked.
	assert.Equal(t, `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Unknown tool: nope"}}`,
		authzDispatch(s, "alice", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope",`+meta+`}}`))
	assert.Len(t, policy.questions(), 2)
}

// TestAuthorizeConcealMatchesUnknown: a concealed refusal is byte for byte the reply of a
// server without the tool, and the tool is not listed either.
func TestAuthorizeConcealMatchesUnknown(t *testing.T) {
	policy := &authzPolicy{decide: func(_ Phase, _ string, c Component) error {
		if c.Name == "secret" {
			return NewError(-32004, "Forbidden", nil)
		}
		return nil
	}}
	s, _ := wrapServer(t, &Config{Authorizer: policy, ConcealRefusals: true})
	authzTools(s, "public", "secret")
	plain, _ := wrapServer(t, nil)
	authzTools(plain, "public")

	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"secret",` + meta + `}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + meta + `}}`,
	} {
		assert.Equal(t, dispatch(t, plain, msg), authzDispatch(s, "alice", msg), msg)
	}
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unknown tool: secret"}}`,
		authzDispatch(s, "alice", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"secret",`+meta+`}}`))
}

func TestAuthorizePolicyFaults(t *testing.T) {
	tests := []struct {
		name  string
		fault func(c Component) error
	}{
		{"panic", func(Component) error { panic("policy bug") }},
		{"plain error", func(Component) error { return errors.New("directory unreachable") }},
		{"panic on one component", func(c Component) error {
			if c.Name == "b" {
				panic("policy bug")
			}
			return nil
		}},
		{"non-refusal error on one component", func(c Component) error {
			if c.Name == "b" {
				return context.DeadlineExceeded
			}
			return nil
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := wrapServer(t, &Config{Authorizer: &authzPolicy{decide: func(_ Phase, _ string, c Component) error {
				return tc.fault(c)
			}}})
			authzTools(s, "a", "b", "c")

			// Never a partial or empty catalog.
			assert.Equal(t, authzPolicyFailed, authzDispatch(s, "alice", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+meta+`}}`))
			assert.Equal(t, authzPolicyFailed, authzDispatch(s, "alice", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"b","arguments":{},`+meta+`}}`))
		})
	}
}

// TestAuthorizeCapabilitiesCatalogWide: a policy that refuses everything hides every tool but
// not the tools capability.
func TestAuthorizeCapabilitiesCatalogWide(t *testing.T) {
	policy := &authzPolicy{decide: func(Phase, string, Component) error { return ErrRefused }}
	s, _ := wrapServer(t, &Config{Authorizer: policy})
	authzTools(s, "a")

	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],`+
		`"capabilities":{"logging":{},"tools":{"listChanged":true}},"ttlMs":0,"cacheScope":"private",`+serverInfoMeta+`}}`,
		authzDispatch(s, "alice", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+meta+`}}`))
	assert.Empty(t, policy.questions(), "discovery of the server asks no policy")
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"private",`+serverInfoMeta+`}}`,
		authzDispatch(s, "alice", `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+meta+`}}`))
	assert.Equal(t, authzAccessDenied, authzDispatch(s, "alice", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a",`+meta+`}}`))
}

// TestAuthorizeRefusalBeforeRequestState: a refused retry is refused before its requestState
// is opened (a tampered state is not even looked at).
func TestAuthorizeRefusalBeforeRequestState(t *testing.T) {
	s, _ := wrapServer(t, &Config{Authorizer: AuthorizerFunc(func(context.Context, Phase, string, Component) error { return ErrRefused })})
	authzTools(s, "a")
	assert.Equal(t, authzAccessDenied, authzDispatch(s, "alice",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","requestState":"tampered","inputResponses":{},`+meta+`}}`))
}
