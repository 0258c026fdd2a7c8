package oauth

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/oauth/oauthtest"
)

const testResource = "https://mcp.example.com/mcp"

// testPolicy: write needs files:write, admin needs admin, which implies files:write.
func testPolicy() *ScopePolicy {
	return &ScopePolicy{
		Tools:   map[string][]string{"write": {"files:write"}, "admin": {"admin"}},
		Implies: Implies{"admin": {"files:write"}},
	}
}

// gateFixture is a resource server in front of the test core.
type gateFixture struct {
	iss   *oauthtest.Issuer
	clock *clock
	rs    *ResourceServer
}

func newGateFixture(t testing.TB) *gateFixture {
	t.Helper()
	f := &gateFixture{iss: newIssuer(t), clock: newClock()}
	v := newJWT(t, f.iss, testResource, f.clock, nil)
	rs, err := New(Config{
		Resource: testResource, AuthorizationServers: []string{f.iss.URL},
		ScopesSupported: []string{"mcp:tools", "files:write"}, RequiredScopes: []string{"mcp:tools"},
		Policy: testPolicy(), Verifier: v, Logger: quiet,
	})
	require.NoError(t, err)
	rs.now = f.clock.Now
	f.rs = rs
	return f
}

// The literal responses of the gate (header lines sorted and lowercased by normalize, the
// Server and Date lines dropped).
const (
	wantNoToken = "HTTP/1.1 401 Unauthorized\r\ncache-control: no-store\r\ncontent-length: 0\r\n" +
		`www-authenticate: Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"` + "\r\n\r\n"
	wantMalformed = "HTTP/1.1 400 Bad Request\r\ncache-control: no-store\r\ncontent-length: 96\r\ncontent-type: application/json\r\n" +
		`www-authenticate: Bearer error="invalid_request", error_description="The Authorization header is not a Bearer token", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"` + "\r\n\r\n" +
		`{"error":"invalid_request","error_description":"The Authorization header is not a Bearer token"}`
	wantRepeated = "HTTP/1.1 400 Bad Request\r\ncache-control: no-store\r\ncontent-length: 100\r\ncontent-type: application/json\r\n" +
		`www-authenticate: Bearer error="invalid_request", error_description="The request has more than one Authorization header", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"` + "\r\n\r\n" +
		`{"error":"invalid_request","error_description":"The request has more than one Authorization header"}`
	wantInvalid = "HTTP/1.1 401 Unauthorized\r\ncache-control: no-store\r\ncontent-length: 116\r\ncontent-type: application/json\r\n" +
		`www-authenticate: Bearer error="invalid_token", error_description="The access token is invalid, expired or not issued for this resource", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"` + "\r\n\r\n" +
		`{"error":"invalid_token","error_description":"The access token is invalid, expired or not issued for this resource"}`
	wantScopeRequired = "HTTP/1.1 403 Forbidden\r\ncache-control: no-store\r\ncontent-length: 101\r\ncontent-type: application/json\r\n" +
		`www-authenticate: Bearer error="insufficient_scope", error_description="The access token lacks scopes this request needs", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"` + "\r\n\r\n" +
		`{"error":"insufficient_scope","error_description":"The access token lacks scopes this request needs"}`
	wantScopeWrite = "HTTP/1.1 403 Forbidden\r\ncache-control: no-store\r\ncontent-length: 101\r\ncontent-type: application/json\r\n" +
		`www-authenticate: Bearer error="insufficient_scope", error_description="The access token lacks scopes this request needs", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:tools files:write"` + "\r\n\r\n" +
		`{"error":"insufficient_scope","error_description":"The access token lacks scopes this request needs"}`
	wantOptions = "HTTP/1.1 204 No Content\r\naccess-control-allow-headers: MCP-Protocol-Version\r\naccess-control-allow-methods: GET, OPTIONS\r\n" +
		"access-control-allow-origin: *\r\naccess-control-max-age: 86400\r\n\r\n"
	wantNotAllowed = "HTTP/1.1 405 Method Not Allowed\r\naccess-control-allow-origin: *\r\nallow: GET, OPTIONS\r\ncontent-length: 0\r\n\r\n"
)

func wantMetadata(issuer, resource string) string {
	body := `{"resource":"` + resource + `","authorization_servers":["` + issuer + `"],"scopes_supported":["mcp:tools","files:write"],"bearer_methods_supported":["header"]}`
	return "HTTP/1.1 200 OK\r\naccess-control-allow-origin: *\r\ncache-control: max-age=3600\r\n" +
		"content-length: " + itoa(len(body)) + "\r\ncontent-type: application/json\r\n\r\n" + body
}

func wantResult(text string) string {
	body := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"` + text + `"}],` + serverInfo + `}}`
	return "HTTP/1.1 200 OK\r\ncontent-length: " + itoa(len(body)) + "\r\ncontent-type: application/json\r\n\r\n" + body
}

// TestGateExchanges sends every refusal, the metadata routes and admitted calls as literal
// HTTP to the native listener, the net/http adapter and the mounted fasthttp handler, each
// with and without GateQuick: each answers the same bytes (header order and the Server line
// aside), and no response holds the token it was sent.
func TestGateExchanges(t *testing.T) {
	f := newGateFixture(t)
	now := f.clock.Now()
	tokens := map[string]string{
		"tools":   goodToken(t, f.iss, f.clock, testResource, oauthtest.KeyRSA, "mcp:tools"),
		"ec":      goodToken(t, f.iss, f.clock, testResource, oauthtest.KeyEC, "mcp:tools files:write"),
		"ed":      goodToken(t, f.iss, f.clock, testResource, oauthtest.KeyEd25519, "mcp:tools admin"),
		"none":    goodToken(t, f.iss, f.clock, testResource, oauthtest.KeyRSA, "files:write"),
		"expired": mint(t, f.iss, oauthtest.Token{Subject: "alice", Audience: testResource, Scope: "mcp:tools", Expiry: now.Add(-time.Hour)}),
		"aud":     mint(t, f.iss, oauthtest.Token{Subject: "alice", Audience: "https://other.example.com/mcp", Scope: "mcp:tools", Expiry: now.Add(time.Hour)}),
		"origin":  goodToken(t, f.iss, f.clock, "https://mcp.example.com", oauthtest.KeyRSA, "mcp:tools"),
	}
	bearer := func(name string) string { return "Authorization: Bearer " + tokens[name] }
	get := func(path string) func(string) string {
		return func(a string) string { return "GET " + path + " HTTP/1.1\r\nHost: " + a + "\r\n\r\n" }
	}
	tests := []struct {
		name string
		raw  func(addr string) string
		want string
	}{
		{"path-based metadata, no token needed", get("/.well-known/oauth-protected-resource/mcp"), wantMetadata(f.iss.URL, testResource)},
		{"root metadata names the origin", get("/.well-known/oauth-protected-resource"), wantMetadata(f.iss.URL, "https://mcp.example.com")},
		{"metadata preflight", func(a string) string {
			return "OPTIONS /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: " + a +
				"\r\nOrigin: https://app.example\r\nAccess-Control-Request-Method: GET\r\n\r\n"
		}, wantOptions},
		{"metadata POST", func(a string) string {
			return "POST /.well-known/oauth-protected-resource HTTP/1.1\r\nHost: " + a + "\r\nContent-Length: 0\r\n\r\n"
		}, wantNotAllowed},
		{"no token", func(a string) string { return post(a, "whoami") }, closing(wantNoToken)},
		{"another scheme", func(a string) string { return post(a, "whoami", "Authorization: Basic YWxpY2U6cHc=") }, closing(wantNoToken)},
		{"Bearer without a token", func(a string) string { return post(a, "whoami", "Authorization: Bearer") }, closing(wantMalformed)},
		{"two tokens in one header", func(a string) string { return post(a, "whoami", "Authorization: Bearer abc def") }, closing(wantMalformed)},
		{"a token with a quote", func(a string) string { return post(a, "whoami", `Authorization: Bearer ab"c`) }, closing(wantMalformed)},
		{"repeated Authorization", func(a string) string { return post(a, "whoami", bearer("tools"), bearer("tools")) }, closing(wantRepeated)},
		{"not a JWT", func(a string) string { return post(a, "whoami", "Authorization: Bearer abc.def.ghi") }, closing(wantInvalid)},
		{"expired", func(a string) string { return post(a, "whoami", bearer("expired")) }, closing(wantInvalid)},
		{"another audience", func(a string) string { return post(a, "whoami", bearer("aud")) }, closing(wantInvalid)},
		{"over MaxTokenBytes", func(a string) string {
			return post(a, "whoami", "Authorization: Bearer "+strings.Repeat("a", DefaultMaxTokenBytes+1))
		}, closing(wantInvalid)},
		{"lacks the required scope", func(a string) string { return post(a, "whoami", bearer("none")) }, closing(wantScopeRequired)},
		{"lacks the tool's scope: all scopes of the call", func(a string) string { return post(a, "write", bearer("tools")) }, closing(wantScopeWrite)},
		{"admitted (RS256)", func(a string) string { return post(a, "whoami", bearer("tools")) }, wantResult("alice via inspector [mcp:tools]")},
		{"admitted with the tool's scope (ES256)", func(a string) string { return post(a, "write", bearer("ec")) },
			wantResult("alice via inspector [mcp:tools files:write]")},
		{"a broader scope implies the tool's (EdDSA)", func(a string) string { return post(a, "write", bearer("ed")) },
			wantResult("alice via inspector [mcp:tools admin]")},
		{"a token for the origin, the root metadata's resource", func(a string) string { return post(a, "whoami", bearer("origin")) },
			wantResult("alice via inspector [mcp:tools]")},
		{"lowercase scheme", func(a string) string {
			return post(a, "whoami", "Authorization: bearer "+tokens["tools"])
		}, wantResult("alice via inspector [mcp:tools]")},
	}
	for _, run := range gateRuns() {
		t.Run(run.name, func(t *testing.T) {
			addr := startStack(t, run.stack, testCore(t, testPolicy()), run.config(f.rs))
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					got := exchange(t, addr, tc.raw(addr))
					assert.Equal(t, tc.want, normalize(got))
					for _, tok := range tokens {
						assert.NotContains(t, got, tok, "a response never holds a token")
					}
				})
			}
		})
	}
}
