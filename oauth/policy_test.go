package oauth

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/internal/wireschema"
	"github.com/fastmcp-go/fastmcp/oauth/oauthtest"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// withToken is a context carrying the identity the gate attaches for a token with scopes.
func withToken(scopes ...string) context.Context {
	info := &TokenInfo{Subject: "alice", Scopes: scopes}
	return fastmcp.WithIdentity(context.Background(), &fastmcp.Identity{Principal: info.Subject, Claims: info})
}

func toolsList() string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`
}

func toolsCall(name string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + meta + `,"name":"` + name + `","arguments":{}}}`
}

// TestScopePolicyAtTheComponentBoundary: lists leave out what the token's scopes do not
// reach (and stay cacheScope private), and a call is refused with -32003 and the scopes it
// needs, whatever the HTTP layer let through.
func TestScopePolicyAtTheComponentBoundary(t *testing.T) {
	core := testCore(t, testPolicy())
	list := func(ctx context.Context) string { return string(core.Dispatch(ctx, []byte(toolsList()), nil)) }

	anonymous := list(context.Background())
	wireschema.RequireValid(t, "ListToolsResultResponse", []byte(anonymous))
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[`+
		`{"name":"whoami","description":"Who am I","inputSchema":{"type":"object","properties":{}}}`+
		`],"ttlMs":0,"cacheScope":"private",`+serverInfo+`}}`, anonymous)

	admin := list(withToken("admin"))
	wireschema.RequireValid(t, "ListToolsResultResponse", []byte(admin))
	assert.Contains(t, admin, `"name":"write"`, "admin implies files:write")
	assert.Contains(t, admin, `"name":"admin"`)
	assert.Contains(t, admin, `"cacheScope":"private"`)

	writer := list(withToken("files:write"))
	assert.Contains(t, writer, `"name":"write"`)
	assert.NotContains(t, writer, `"name":"admin"`)

	refused := string(core.Dispatch(withToken("files:write"), []byte(toolsCall("admin")), nil))
	wireschema.RequireValid(t, "JSONRPCErrorResponse", []byte(refused))
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32003,"message":"Insufficient scope for tool admin",`+
		`"data":{"error":"insufficient_scope","scope":"admin"}}}`, refused)

	allowed := string(core.Dispatch(withToken("admin"), []byte(toolsCall("write")), nil))
	wireschema.RequireValid(t, "CallToolResultResponse", []byte(allowed))
	assert.Contains(t, allowed, `"text":"alice via  [admin]"`)
}

// TestScopePolicyPromptsAndResources: the refusal names the component's kind, and a
// template counts as a resource.
func TestScopePolicyPromptsAndResources(t *testing.T) {
	p := &ScopePolicy{Prompts: map[string][]string{"brief": {"p"}}, Resources: map[string][]string{"files": {"r1", "r2"}}}
	err := p.Authorize(withToken("p"), fastmcp.PhaseInvocation, "prompts/get", fastmcp.Component{Kind: "prompt", Name: "brief"})
	require.NoError(t, err)
	err = p.Authorize(withToken("r1"), fastmcp.PhaseInvocation, "resources/read", fastmcp.Component{Kind: "resource_template", Name: "files"})
	var e *fastmcp.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, CodeInsufficientScope, e.Code)
	assert.Equal(t, "Insufficient scope for resource files", e.Message)
	assert.JSONEq(t, `{"error":"insufficient_scope","scope":"r1 r2"}`, string(e.Data))
	require.NoError(t, p.Authorize(withToken("r2", "r1"), fastmcp.PhaseDiscovery, "resources/list", fastmcp.Component{Kind: "resource", Name: "files"}))
	require.NoError(t, p.Authorize(context.Background(), fastmcp.PhaseDiscovery, "tools/list", fastmcp.Component{Kind: "tool", Name: "unlisted"}))
}

// TestScopePolicyBehindTheGate: a request the gate admits on its headers (an
// initialize-era call, whose Mcp-Name is not read; a 2026-07-28 call whose Mcp-Name lies)
// still meets the policy or the header check: the token's scopes never reach a tool they do
// not cover. Without StepUp the initialize-era refusal is the JSON-RPC error.
func TestScopePolicyBehindTheGate(t *testing.T) {
	f := newGateFixture(t)
	tok := goodToken(t, f.iss, f.clock, testResource, oauthtest.KeyRSA, "mcp:tools")
	addr := startStack(t, stackNative, testCore(t, testPolicy()), streamable.ListenerConfig{Config: streamable.Config{RequestGate: f.rs.Gate}})

	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"write","arguments":{}}}`
	legacy := "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
		"MCP-Protocol-Version: 2025-11-25\r\nAuthorization: Bearer " + tok + "\r\nContent-Length: " + itoa(len(body)) + "\r\n\r\n" + body
	wantBody := `{"jsonrpc":"2.0","id":7,"error":{"code":-32003,"message":"Insufficient scope for tool write","data":{"error":"insufficient_scope","scope":"files:write"}}}`
	got := exchange(t, addr, legacy)
	assert.Equal(t, "HTTP/1.1 200 OK\r\ncontent-length: "+itoa(len(wantBody))+"\r\ncontent-type: application/json\r\n\r\n"+wantBody, normalize(got))
	wireschema.RequireValidRev(t, "2025-11-25", "JSONRPCErrorResponse", []byte(wantBody))

	lie := post(addr, "whoami", "Authorization: Bearer "+tok)
	lie = replaceBody(lie, toolsCall("write"))
	got = exchange(t, addr, lie)
	assert.Contains(t, got, "HTTP/1.1 400 Bad Request\r\n")
	assert.Contains(t, got, `"code":-32020`, "Mcp-Name must equal the body's name")
}

// TestStepUpInitializeEra: with StepUp, an initialize-era call the policy refuses is answered
// on every stack with the very 403 challenge the gate gives a 2026-07-28 call (the
// required scopes and the tool's), a call the token covers is served, and other errors stay
// JSON-RPC replies; the refusals are counted.
func TestStepUpInitializeEra(t *testing.T) {
	for _, stack := range allStacks {
		t.Run(stack, func(t *testing.T) {
			f := newGateFixture(t)
			tok := goodToken(t, f.iss, f.clock, testResource, oauthtest.KeyRSA, "mcp:tools")
			addr := startStack(t, stack, testCore(t, testPolicy()), streamable.ListenerConfig{Config: streamable.Config{RequestGate: f.rs.Gate, StepUp: f.rs.StepUp}})
			legacy := func(body string) string {
				return "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
					"MCP-Protocol-Version: 2025-11-25\r\nAuthorization: Bearer " + tok + "\r\nContent-Length: " + itoa(len(body)) + "\r\n\r\n" + body
			}
			got := exchange(t, addr, legacy(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"write","arguments":{}}}`))
			assert.Equal(t, wantScopeWrite, normalize(got))
			got = exchange(t, addr, legacy(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`))
			assert.Contains(t, got, "HTTP/1.1 200 OK\r\n")
			assert.Contains(t, got, `"text":"alice via inspector [mcp:tools]"`)
			got = exchange(t, addr, legacy(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"no-such-tool","arguments":{}}}`))
			assert.Contains(t, got, "HTTP/1.1 200 OK\r\n")
			assert.Contains(t, got, `"code":-32602`)
			assert.Equal(t, int64(1), f.rs.Stats().StepUps)
		})
	}
}

// TestStepUpOnlyScopeRefusals: StepUp answers nothing but a well-formed insufficient-scope
// refusal.
func TestStepUpOnlyScopeRefusals(t *testing.T) {
	f := newGateFixture(t)
	for _, e := range []*fastmcp.Error{nil, fastmcp.NewError(-32602, "bad", nil), fastmcp.NewError(CodeInsufficientScope, "x", nil),
		fastmcp.NewError(CodeInsufficientScope, "x", []byte(`{"error":"access_denied","scope":"a"}`)),
		fastmcp.NewError(CodeInsufficientScope, "x", []byte(`{"error":"insufficient_scope","scope":" "}`)),
		fastmcp.NewError(CodeInsufficientScope, "x", []byte(`[1]`))} {
		assert.Nil(t, f.rs.StepUp(e), "%v", e)
	}
	r := f.rs.StepUp(fastmcp.NewError(CodeInsufficientScope, "x", []byte(`{"error":"insufficient_scope","scope":"files:write mcp:tools"}`)))
	require.NotNil(t, r)
	assert.Equal(t, 403, r.Status)
	assert.Equal(t, `Bearer error="insufficient_scope", error_description="The access token lacks scopes this request needs", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:tools files:write"`, r.Header["WWW-Authenticate"])
}

// replaceBody swaps the body of a raw request, fixing its Content-Length.
func replaceBody(raw, body string) string {
	head, _, _ := cut(raw, "Content-Length: ")
	return head + "Content-Length: " + itoa(len(body)) + "\r\n\r\n" + body
}
