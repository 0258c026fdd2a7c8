package oauth

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/streamable"
)

// verifierFunc adapts a function to Verifier.
type verifierFunc func(ctx context.Context, token string) (*TokenInfo, error)

func (f verifierFunc) Verify(ctx context.Context, token string) (*TokenInfo, error) {
	return f(ctx, token)
}

const wantGateFailed = "HTTP/1.1 500 Internal Server Error\r\ncontent-length: 83\r\ncontent-type: application/json\r\n\r\n" +
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Request gate failed"}}`

// TestGateFailsClosed: a verifier that returns no subject or panics never admits: 500
// "Request gate failed"; one that could not check the token never admits either: 503
// (its error is not ErrInvalidToken, so it is no refusal of the token). The token is
// nowhere in the response.
func TestGateFailsClosed(t *testing.T) {
	rs, err := New(Config{Resource: testResource, AuthorizationServers: []string{"https://as.example"}, RequiredScopes: []string{"mcp:tools"}, Logger: quiet,
		Verifier: verifierFunc(func(context.Context, string) (*TokenInfo, error) {
			return nil, errors.New("authorization server unreachable")
		})})
	require.NoError(t, err)
	for _, stack := range allStacks {
		addr := startStack(t, stack, testCore(t, nil), streamable.ListenerConfig{Config: streamable.Config{RequestGate: rs.Gate}})
		got := exchange(t, addr, post(addr, "whoami", "Authorization: Bearer secret-token"))
		assert.Equal(t, closing(wantUnavailable), normalize(got), stack)
	}
	tests := map[string]verifierFunc{
		"no subject": func(context.Context, string) (*TokenInfo, error) { return &TokenInfo{}, nil },
		"nil info":   func(context.Context, string) (*TokenInfo, error) { return nil, nil },
		"panics":     func(context.Context, string) (*TokenInfo, error) { panic("verifier bug") },
	}
	for name, v := range tests {
		t.Run(name, func(t *testing.T) {
			rs, err := New(Config{Resource: testResource, AuthorizationServers: []string{"https://as.example"}, Verifier: v, Logger: quiet})
			require.NoError(t, err)
			for _, stack := range []string{stackNative, stackNetHTTP} {
				addr := startStack(t, stack, testCore(t, nil), streamable.ListenerConfig{Config: streamable.Config{RequestGate: rs.Gate}})
				got := exchange(t, addr, post(addr, "whoami", "Authorization: Bearer secret-token"))
				assert.Equal(t, closing(wantGateFailed), normalize(got), stack)
			}
		})
	}
}

// TestGateExpiryRecheck: the gate refuses a token whose verified expiry has passed even if
// the verifier (a cache, say) still vouches for it.
func TestGateExpiryRecheck(t *testing.T) {
	c := newClock()
	v := verifierFunc(func(context.Context, string) (*TokenInfo, error) {
		return &TokenInfo{Subject: "alice", Expiry: c.Now()}, nil
	})
	rs, err := New(Config{Resource: testResource, AuthorizationServers: []string{"https://as.example"}, Verifier: v, Logger: quiet})
	require.NoError(t, err)
	rs.now = c.Now
	d, err := rs.Gate(context.Background(), gateRequest("POST", "/mcp", "Authorization", "Bearer abc"))
	require.NoError(t, err)
	require.NotNil(t, d.Response)
	assert.Equal(t, 401, d.Response.Status)
	assert.Nil(t, d.Identity)
}

// TestGateListenEndsAtExpiry: the identity the gate admits carries the token's expiry, so a
// subscriptions/listen stream opened with the token completes (its result, as at a drain)
// when the token expires, on every stack, never before.
func TestGateListenEndsAtExpiry(t *testing.T) {
	const lifetime = 2 * time.Second
	v := verifierFunc(func(context.Context, string) (*TokenInfo, error) {
		return &TokenInfo{Subject: "alice", Expiry: time.Now().Add(lifetime)}, nil
	})
	body := `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{` + meta + `,"notifications":{"toolsListChanged":true}}}`
	for _, stack := range allStacks {
		t.Run(stack, func(t *testing.T) {
			rs, err := New(Config{Resource: testResource, AuthorizationServers: []string{"https://as.example"}, Verifier: v, Logger: quiet})
			require.NoError(t, err)
			d, err := rs.Gate(context.Background(), gateRequest("POST", "/mcp", "Authorization", "Bearer other"))
			require.NoError(t, err)
			require.NotNil(t, d.Identity)
			assert.Equal(t, d.Identity.Claims.(*TokenInfo).Expiry, d.Identity.Expires)

			addr := startStack(t, stack, testCore(t, nil), streamable.ListenerConfig{Config: streamable.Config{RequestGate: rs.Gate}})
			c, err := net.Dial("tcp", addr)
			require.NoError(t, err)
			defer c.Close()
			require.NoError(t, c.SetDeadline(time.Now().Add(30*time.Second)))
			opened := time.Now()
			_, err = io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/json\r\n"+
				"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\n"+
				"Authorization: Bearer secret-token\r\nConnection: close\r\nContent-Length: "+itoa(len(body))+"\r\n\r\n"+body)
			require.NoError(t, err)
			got, err := io.ReadAll(c) // the server closes the connection once the stream completes
			require.NoError(t, err)
			assert.GreaterOrEqual(t, time.Since(opened), lifetime-100*time.Millisecond, "the stream ended before the token expired")
			assert.Contains(t, string(got), "HTTP/1.1 200")
			assert.Contains(t, string(got), `"method":"notifications/subscriptions/acknowledged"`)
			assert.Contains(t, string(got), `{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete"`)
		})
	}
}

// TestGateMaxTokenBytes: a configured limit replaces the default, and a token over it never
// reaches the verifier.
func TestGateMaxTokenBytes(t *testing.T) {
	calls := 0
	v := verifierFunc(func(_ context.Context, tok string) (*TokenInfo, error) {
		calls++
		return &TokenInfo{Subject: "alice"}, nil
	})
	rs, err := New(Config{Resource: testResource, AuthorizationServers: []string{"https://as.example"}, Verifier: v, MaxTokenBytes: 8, Logger: quiet})
	require.NoError(t, err)
	d, err := rs.Gate(context.Background(), gateRequest("POST", "/mcp", "Authorization", "Bearer 12345678"))
	require.NoError(t, err)
	require.NotNil(t, d.Identity)
	d, err = rs.Gate(context.Background(), gateRequest("POST", "/mcp", "Authorization", "Bearer 123456789"))
	require.NoError(t, err)
	require.NotNil(t, d.Response)
	assert.Equal(t, 401, d.Response.Status)
	assert.Contains(t, d.Response.Header["WWW-Authenticate"], `error="invalid_token"`)
	assert.Equal(t, 1, calls)
}

// TestGateIntrospectionThroughNewHandler: an opaque token checked by introspection admits a
// call over the net/http adapter; an inactive one gets 401 invalid_token.
func TestGateIntrospectionThroughNewHandler(t *testing.T) {
	iss, c := newIssuer(t), newClock()
	exp := itoa(int(c.Now().Add(time.Hour).Unix()))
	iss.Register("opaque-1", `{"active":true,"sub":"carol","client_id":"cli","aud":"`+testResource+`","scope":"mcp:tools","exp":`+exp+`}`)
	rs, err := New(Config{Resource: testResource, AuthorizationServers: []string{iss.URL}, RequiredScopes: []string{"mcp:tools"},
		ScopesSupported: []string{"mcp:tools", "files:write"}, Verifier: newIntrospection(t, iss, c, nil), Logger: quiet})
	require.NoError(t, err)
	rs.now = c.Now
	addr := startStack(t, stackNetHTTP, testCore(t, nil), streamable.ListenerConfig{Config: streamable.Config{RequestGate: rs.Gate}})
	assert.Equal(t, wantResult("carol via cli [mcp:tools]"), normalize(exchange(t, addr, post(addr, "whoami", "Authorization: Bearer opaque-1"))))
	assert.Equal(t, closing(wantInvalid), normalize(exchange(t, addr, post(addr, "whoami", "Authorization: Bearer opaque-2"))))
}

func TestNewConfig(t *testing.T) {
	v := verifierFunc(func(context.Context, string) (*TokenInfo, error) { return nil, nil })
	base := Config{Resource: testResource, AuthorizationServers: []string{"https://as.example"}, Verifier: v}
	tests := []struct {
		name  string
		tweak func(*Config)
		want  string
	}{
		{"no resource", func(c *Config) { c.Resource = "" }, "must be an absolute https URL"},
		{"http resource", func(c *Config) { c.Resource = "http://mcp.example.com/mcp" }, "must use https"},
		{"uppercase host", func(c *Config) { c.Resource = "https://MCP.example.com/mcp" }, "not canonical"},
		{"trailing slash", func(c *Config) { c.Resource = "https://mcp.example.com/mcp/" }, "trailing slash"},
		{"fragment", func(c *Config) { c.Resource = "https://mcp.example.com/mcp#x" }, "fragment"},
		{"query", func(c *Config) { c.Resource = "https://mcp.example.com/mcp?x=1" }, "query"},
		{"no authorization server", func(c *Config) { c.AuthorizationServers = nil }, "AuthorizationServers is empty"},
		{"no verifier", func(c *Config) { c.Verifier = nil }, "Verifier is nil"},
		{"offline_access", func(c *Config) { c.ScopesSupported = []string{"offline_access"} }, "offline_access"},
		{"scope with a quote", func(c *Config) { c.RequiredScopes = []string{`a"b`} }, "not a scope token"},
		{"policy scope with a space", func(c *Config) { c.Policy = &ScopePolicy{Tools: map[string][]string{"t": {"a b"}}} }, "not a scope token"},
		{"negative MaxTokenBytes", func(c *Config) { c.MaxTokenBytes = -1 }, "MaxTokenBytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := base
			tc.tweak(&cfg)
			_, err := New(cfg)
			require.ErrorIs(t, err, ErrInvalidConfig)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	jwt, err := NewJWTVerifier(JWTConfig{Issuer: "https://as.example", Audiences: []string{"https://other.example/mcp"}, JWKS: JWKSConfig{URL: "https://as.example/jwks"}})
	require.NoError(t, err)
	cfg := base
	cfg.Verifier = jwt
	_, err = New(cfg)
	require.ErrorContains(t, err, "do not include Resource", "a verifier for another audience admits nothing")
	jwt, err = NewJWTVerifier(JWTConfig{Issuer: "https://as2.example", Audiences: []string{testResource}, JWKS: JWKSConfig{URL: "https://as2.example/jwks"}})
	require.NoError(t, err)
	cfg.Verifier = jwt
	_, err = New(cfg)
	require.ErrorContains(t, err, "is not among AuthorizationServers")

	rs, err := New(base)
	require.NoError(t, err)
	assert.Equal(t, DefaultMaxTokenBytes, rs.cfg.MaxTokenBytes)
	assert.Equal(t, "https://mcp.example.com/.well-known/oauth-protected-resource/mcp", rs.MetadataURL())

	root, err := New(Config{Resource: "https://mcp.example.com", AuthorizationServers: []string{"https://as.example"}, Verifier: v})
	require.NoError(t, err)
	assert.Equal(t, "https://mcp.example.com/.well-known/oauth-protected-resource", root.MetadataURL())
	assert.Len(t, root.routes, 1, "a resource at the origin has one document")
	local, err := New(Config{Resource: "http://127.0.0.1:8080/mcp", AuthorizationServers: []string{"http://127.0.0.1:9000"}, Verifier: v})
	require.NoError(t, err, "http on loopback")
	assert.Equal(t, "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp", local.MetadataURL())
}

// gateRequest is a GateRequest with header name/value pairs.
func gateRequest(method, path string, kv ...string) streamable.GateRequest {
	h := &listHeaders{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.names = append(h.names, kv[i])
		h.values = append(h.values, []byte(kv[i+1]))
	}
	return streamable.GateRequest{Method: []byte(method), Path: []byte(path), Header: h}
}

// listHeaders is a Headers of name/value pairs that allocates nothing to look one up.
type listHeaders struct {
	names  []string
	values [][]byte
	out    [][]byte
}

func (l *listHeaders) Values(name string) [][]byte {
	l.out = l.out[:0]
	for i, n := range l.names {
		if strings.EqualFold(n, name) {
			l.out = append(l.out, l.values[i])
		}
	}
	if len(l.out) == 0 {
		return nil
	}
	return l.out
}

// TestMetadataRoutes: the path-based document follows the resource's path (decoded as the
// endpoint routes it), HEAD is answered like GET, and other paths under the well-known
// prefix need a token like any request.
func TestMetadataRoutes(t *testing.T) {
	v := verifierFunc(func(context.Context, string) (*TokenInfo, error) { return nil, invalid("x") })
	rs, err := New(Config{Resource: "https://mcp.example.com/v1/my%20mcp", AuthorizationServers: []string{"https://as.example"}, Verifier: v, Logger: quiet})
	require.NoError(t, err)
	assert.Equal(t, "https://mcp.example.com/.well-known/oauth-protected-resource/v1/my%20mcp", rs.MetadataURL())
	for _, tc := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/.well-known/oauth-protected-resource/v1/my mcp", 200},
		{"HEAD", "/.well-known/oauth-protected-resource/v1/my mcp", 200},
		{"GET", "/.well-known/oauth-protected-resource", 200},
		{"DELETE", "/.well-known/oauth-protected-resource", 405},
		{"GET", "/.well-known/oauth-protected-resource/other", 401},
		{"GET", "/.well-known/oauth-protected-resource/v1/my%20mcp", 401}, // the gate sees decoded paths
	} {
		d, err := rs.Gate(context.Background(), gateRequest(tc.method, tc.path))
		require.NoError(t, err)
		require.NotNil(t, d.Response, "%s %s", tc.method, tc.path)
		assert.Equal(t, tc.status, d.Response.Status, "%s %s", tc.method, tc.path)
	}
	d, _ := rs.Gate(context.Background(), gateRequest("GET", "/.well-known/oauth-protected-resource"))
	assert.JSONEq(t, `{"resource":"https://mcp.example.com","authorization_servers":["https://as.example"],"bearer_methods_supported":["header"]}`, string(d.Response.Body))
}
