package gateway

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// guardedBackend is a test backend that admits only "Bearer "+token (empty: nobody, "*":
// anybody),
// refusing the rest with 401 and a challenge naming resourceMetadata; it records the
// Authorization headers it received.
type guardedBackend struct {
	url       string
	wellKnown atomic.Pointer[string] // its protected resource metadata, served at the well-known URL when set
	mu        sync.Mutex
	auth      []string
	token     atomic.Pointer[string]
}

func startGuardedBackend(t *testing.T, resourceMetadata func() string) *guardedBackend {
	t.Helper()
	gb := &guardedBackend{}
	empty := ""
	gb.token.Store(&empty)
	cfg := streamable.ListenerConfig{Addr: "127.0.0.1:0"}
	cfg.RequestGate = func(ctx context.Context, r streamable.GateRequest) (streamable.GateDecision, error) {
		if doc := gb.wellKnown.Load(); doc != nil && strings.HasPrefix(string(r.Path), "/.well-known/oauth-protected-resource") {
			return streamable.GateDecision{Response: &streamable.GateResponse{Status: 200, ContentType: "application/json", Body: []byte(*doc)}}, nil
		}
		got := ""
		gb.mu.Lock()
		for _, v := range r.Header.Values("Authorization") {
			got = string(v)
			gb.auth = append(gb.auth, got)
		}
		gb.mu.Unlock()
		if tok := *gb.token.Load(); tok == "*" || tok != "" && got == "Bearer "+tok {
			return streamable.GateDecision{}, nil
		}
		return streamable.GateDecision{Response: &streamable.GateResponse{Status: 401, ContentType: "application/json",
			Header: map[string]string{"WWW-Authenticate": `Bearer resource_metadata="` + resourceMetadata() + `"`},
			Body:   []byte(`{"error":"invalid_token"}`)}}, nil
	}
	gb.url, _ = serveHTTPWith(t, newBackendServer("a", nil), cfg, nil)
	return gb
}

func (gb *guardedBackend) admit(token string) { gb.token.Store(&token) }

func (gb *guardedBackend) seen() []string {
	gb.mu.Lock()
	defer gb.mu.Unlock()
	return append([]string(nil), gb.auth...)
}

// fakeIssuer is an authorization server for the client credentials grant on its own
// loopback origin: its metadata, a token endpoint for client "gw" with secret "s3cret"
// (client_secret_basic) that issues "backend-token", and the backend's protected resource
// metadata at /prm (resource and authorization_servers settable).
type fakeIssuer struct {
	srv      *httptest.Server
	key      *ecdsa.PublicKey // when set, the client authenticates with private_key_jwt signed by it
	tokenURL string           // the token endpoint its metadata names (default its own /token)
	mu       sync.Mutex
	prm      map[string]any
	tokens   int
	granted  []string // the resource of each token request
}

func newFakeIssuer(t *testing.T) *fakeIssuer {
	f := &fakeIssuer{}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	f.tokenURL = f.srv.URL + "/token"
	return f
}

// tokenElsewhere serves the token endpoint on another origin, which the metadata names.
func (f *fakeIssuer) tokenElsewhere(t *testing.T) string {
	other := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(other.Close)
	f.tokenURL = other.URL + "/token"
	return other.URL
}

// clientAuthenticated reports whether a token request is client "gw"'s: its secret, or an
// assertion signed by f.key for this issuer.
func (f *fakeIssuer) clientAuthenticated(r *http.Request) bool {
	if f.key == nil {
		id, secret, ok := r.BasicAuth()
		return ok && id == "gw" && secret == "s3cret"
	}
	if r.PostFormValue("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" {
		return false
	}
	tok, err := jwt.ParseSigned(r.PostFormValue("client_assertion"), []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return false
	}
	var c jwt.Claims
	if tok.Claims(f.key, &c) != nil {
		return false
	}
	return c.Issuer == "gw" && c.Subject == "gw" && c.Audience.Contains(f.srv.URL) &&
		c.ValidateWithLeeway(jwt.Expected{Time: time.Now()}, time.Minute) == nil
}

func (f *fakeIssuer) setPRM(resource string, servers ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.prm = map[string]any{"resource": resource, "authorization_servers": servers}
}

func (f *fakeIssuer) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/prm":
		_ = json.NewEncoder(w).Encode(f.prm)
	case r.Method == http.MethodGet && r.URL.Path == "/.well-known/oauth-authorization-server":
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": f.srv.URL, "token_endpoint": f.tokenURL,
			"grant_types_supported": []string{"client_credentials"}, "token_endpoint_auth_methods_supported": []string{"client_secret_basic", "private_key_jwt"}})
	case r.Method == http.MethodPost && r.URL.Path == "/token":
		if !f.clientAuthenticated(r) || r.PostFormValue("grant_type") != "client_credentials" {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":"invalid_client"}`))
			return
		}
		f.tokens++
		f.granted = append(f.granted, r.PostFormValue("resource"))
		_, _ = w.Write([]byte(`{"access_token":"backend-token","token_type":"Bearer","expires_in":3600}`))
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

// hitCounter is a server that must never be asked: it counts every request.
func hitCounter(t *testing.T) (url string, hits *atomic.Int64) {
	hits = &atomic.Int64{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"issuer":"x","token_endpoint":"http://127.0.0.1:1/token","resource":"x","authorization_servers":["x"]}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL, hits
}

// callEcho calls the backend's echo through the gateway with the caller's own Authorization
// header, returning the body.
func callEcho(t *testing.T, gw string) string {
	t.Helper()
	status, body := post(t, gw, "tools/call", "echo",
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"t"},`+wireMeta+`}}`,
		"Authorization", "Bearer caller-secret")
	require.Equal(t, 200, status)
	return body
}

const (
	unavailableBody = `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Backend \"a\" is unavailable","data":{"backend":"a"}}}`
	refusedBody     = `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Backend \"a\" refused the gateway's authorization for this request","data":{"backend":"a"}}}`
)

// TestCredentialsStatic: a static Authorization header from the environment reaches the
// backend on every request, and the caller's never does.
func TestCredentialsStatic(t *testing.T) {
	gb := startGuardedBackend(t, func() string { return "http://127.0.0.1:1/never" })
	gb.admit("backend-own")
	t.Setenv("GW_TEST_AUTH", "Bearer backend-own")
	bs, err := ParseConfig([]byte(`{"backends":[{"name":"a","url":"` + gb.url + `","headers":{"Authorization":"env:GW_TEST_AUTH"}}]}`))
	require.NoError(t, err)
	g, gw := startGateway(t, Config{Backends: bs})
	require.True(t, g.Status()[0].Up, "%v", g.Status()[0].Err)

	assert.Contains(t, callEcho(t, gw), `"text":"a: t"`)
	seen := gb.seen()
	require.NotEmpty(t, seen)
	for _, a := range seen {
		assert.Equal(t, "Bearer backend-own", a, "the backend sees only its own credential")
	}
}

// refusedLater checks a backend that refuses what the gateway sends it, the gateway started
// in front of it (before) and the backend refusing once the gateway served it (after, with
// the backend admitting anybody until then): down with wantErr either way; the call it
// refused answered with the refusal, the calls once it is down with the unavailable error.
func refusedLater(t *testing.T, gb *guardedBackend, b Backend, admit string, wantErr error) {
	t.Helper()
	gb.admit(admit)
	g, _ := startGateway(t, Config{Backends: []Backend{b}})
	st := g.Status()[0]
	require.False(t, st.Up)
	require.ErrorIs(t, st.Err, wantErr)

	gb.admit("*")
	g, gw := startGateway(t, Config{Backends: []Backend{b}})
	require.True(t, g.Status()[0].Up, "%v", g.Status()[0].Err)
	gb.admit(admit)
	assert.Equal(t, refusedBody, callEcho(t, gw))
	waitFor(t, "the backend to be down", func() bool { return errors.Is(g.Status()[0].Err, wantErr) })
	assert.Equal(t, unavailableBody, callEcho(t, gw))
}

// TestCredentialsRefused: a backend that refuses its static header, or asks a backend
// without credentials for authorization, is down with the error saying so; the call it
// refused gets the refusal, the calls after the unavailable error, and the
// resource_metadata its challenge names is never fetched.
func TestCredentialsRefused(t *testing.T) {
	counter, hits := hitCounter(t)
	for _, tc := range []struct {
		name    string
		creds   Credentials
		wantErr error
	}{
		{"none", Credentials{}, ErrNoCredentials},
		{"static", Credentials{Authorization: "Bearer wrong"}, ErrCredentialsRefused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gb := startGuardedBackend(t, func() string { return counter + "/prm" })
			refusedLater(t, gb, Backend{Name: "a", URL: gb.url, Credentials: tc.creds}, "right", tc.wantErr)
			assert.Zero(t, hits.Load(), "the challenge's resource_metadata was fetched")
		})
	}
}

// oauthBackend is a Backend with the fake issuer's client credentials.
func oauthBackend(url string, iss *fakeIssuer) Backend {
	return Backend{Name: "a", URL: url, Credentials: Credentials{OAuth: &OAuthClient{
		Issuer: iss.srv.URL, ClientID: "gw", ClientSecret: "s3cret"}}}
}

// TestCredentialsOAuth: the client credentials grant gets the backend's token from its
// issuer (the resource metadata served there), the backend sees only that token, and the
// caller's never.
func TestCredentialsOAuth(t *testing.T) {
	iss := newFakeIssuer(t)
	gb := startGuardedBackend(t, func() string { return iss.srv.URL + "/prm" })
	gb.admit("backend-token")
	iss.setPRM(gb.url, iss.srv.URL)
	g, gw := startGateway(t, Config{Backends: []Backend{oauthBackend(gb.url, iss)}})
	require.True(t, g.Status()[0].Up, "%v", g.Status()[0].Err)

	assert.Contains(t, callEcho(t, gw), `"text":"a: t"`)
	iss.mu.Lock()
	assert.Equal(t, 1, iss.tokens, "one token, kept")
	assert.Equal(t, []string{gb.url}, iss.granted, "the token was asked for the backend (RFC 8707)")
	iss.mu.Unlock()
	for _, a := range gb.seen() {
		assert.Contains(t, []string{"", "Bearer backend-token"}, a, "the backend sees nothing but its own token")
	}
}

// TestCredentialsOAuthPrivateKey: private_key_jwt, with a token endpoint on another origin
// than the issuer's: refused until AllowedOrigins names it.
func TestCredentialsOAuthPrivateKey(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	iss := newFakeIssuer(t)
	iss.key = &key.PublicKey
	tokenOrigin := iss.tokenElsewhere(t)
	gb := startGuardedBackend(t, func() string { return iss.srv.URL + "/prm" })
	gb.admit("backend-token")
	iss.setPRM(gb.url, iss.srv.URL)
	b := Backend{Name: "a", URL: gb.url, Credentials: Credentials{OAuth: &OAuthClient{Issuer: iss.srv.URL, ClientID: "gw", PrivateKey: key}}}

	g, _ := startGateway(t, Config{Backends: []Backend{b}})
	require.ErrorIs(t, g.Status()[0].Err, ErrFetchRefused, "the token endpoint's origin is not allowed")

	b.Credentials.OAuth.AllowedOrigins = []string{tokenOrigin}
	g, gw := startGateway(t, Config{Backends: []Backend{b}})
	require.True(t, g.Status()[0].Up, "%v", g.Status()[0].Err)
	assert.Contains(t, callEcho(t, gw), `"text":"a: t"`)
	iss.mu.Lock()
	defer iss.mu.Unlock()
	assert.Equal(t, 1, iss.tokens)
}

// TestCredentialsHostileBackend: a backend whose challenge or metadata names another
// origin than its own, its issuer's or an allowed one does not make the Gateway fetch it:
// the server there gets no request, the backend is down with ErrFetchRefused, and its
// callers get the unavailable error. An allowed origin is fetched.
func TestCredentialsHostileBackend(t *testing.T) {
	t.Run("resource_metadata elsewhere", func(t *testing.T) {
		counter, hits := hitCounter(t)
		iss := newFakeIssuer(t)
		gb := startGuardedBackend(t, func() string { return counter + "/prm" })
		refusedLater(t, gb, oauthBackend(gb.url, iss), "backend-token", ErrFetchRefused)
		assert.Zero(t, hits.Load())
	})
	t.Run("resource_metadata elsewhere, well-known at home", func(t *testing.T) {
		// The OAuth client would find the backend's metadata at its well-known URL after the
		// refused one; the challenge fails all the same.
		counter, hits := hitCounter(t)
		iss := newFakeIssuer(t)
		gb := startGuardedBackend(t, func() string { return counter + "/prm" })
		doc := `{"resource":"` + gb.url + `","authorization_servers":["` + iss.srv.URL + `"]}`
		gb.wellKnown.Store(&doc)
		refusedLater(t, gb, oauthBackend(gb.url, iss), "backend-token", ErrFetchRefused)
		assert.Zero(t, hits.Load())
	})
	t.Run("authorization server elsewhere", func(t *testing.T) {
		counter, hits := hitCounter(t)
		iss := newFakeIssuer(t)
		gb := startGuardedBackend(t, func() string { return iss.srv.URL + "/prm" })
		iss.setPRM(gb.url, counter)
		refusedLater(t, gb, oauthBackend(gb.url, iss), "backend-token", ErrFetchRefused)
		assert.Zero(t, hits.Load())
	})
	t.Run("allowed origin", func(t *testing.T) {
		counter, hits := hitCounter(t)
		iss := newFakeIssuer(t)
		gb := startGuardedBackend(t, func() string { return counter + "/prm" })
		b := oauthBackend(gb.url, iss)
		b.Credentials.OAuth.AllowedOrigins = []string{counter}
		g, _ := startGateway(t, Config{Backends: []Backend{b}})
		require.False(t, g.Status()[0].Up)
		assert.NotErrorIs(t, g.Status()[0].Err, ErrFetchRefused)
		assert.Positive(t, hits.Load(), "an allowed origin is fetched")
	})
}

// TestCredentialsFetchRefusalLogged: a refused fetch is logged at error level with its URL
// without the query.
func TestCredentialsFetchRefusalLogged(t *testing.T) {
	counter, _ := hitCounter(t)
	iss := newFakeIssuer(t)
	gb := startGuardedBackend(t, func() string { return counter + "/prm?secret=x" })
	log := &syncBuffer{}
	_, _ = startGateway(t, Config{Backends: []Backend{oauthBackend(gb.url, iss)}, Logger: slog.New(slog.NewTextHandler(log, nil))})
	assert.Contains(t, log.String(), `level=ERROR msg="gateway: refused to fetch a URL the backend's authorization named`)
	assert.Contains(t, log.String(), `url=`+counter+"/prm\n")
	assert.NotContains(t, log.String(), "secret=x")
}

// syncBuffer is a log's destination that tests read while the gateway writes.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestCredentialsConfigErrors: credentials New refuses.
func TestCredentialsConfigErrors(t *testing.T) {
	srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "gateway", Version: "1"}, nil)
	require.NoError(t, err)
	oc := func(mod func(*OAuthClient)) Credentials {
		o := &OAuthClient{Issuer: "https://auth.example.com", ClientID: "gw", ClientSecret: "x"}
		mod(o)
		return Credentials{OAuth: o}
	}
	for _, tc := range []struct {
		b    Backend
		want string
	}{
		{Backend{Name: "s", Command: "x", Credentials: Credentials{Authorization: "Bearer x"}},
			`gateway: invalid configuration: backend "s": credentials are sent over HTTP only; a stdio backend takes its own from Env`},
		{Backend{Name: "h", URL: "https://x", Credentials: Credentials{Authorization: "Bearer x", OAuth: &OAuthClient{}}},
			`gateway: invalid configuration: backend "h": both a static Authorization header and OAuth client credentials`},
		{Backend{Name: "h", URL: "https://x", Credentials: Credentials{Authorization: "Bearer x\r\nX-Evil: 1"}},
			`gateway: invalid configuration: backend "h": the Authorization header holds a control character`},
		{Backend{Name: "h", URL: "https://x", Credentials: Credentials{Authorization: "Bearer\tx"}}, // the client would refuse it on every request
			`gateway: invalid configuration: backend "h": the Authorization header holds a control character`},
		{Backend{Name: "h", URL: "https://x", Credentials: Credentials{Headers: map[string]Secret{"X-Key": "a\tb"}}},
			`gateway: invalid configuration: backend "h": the X-Key header holds a control character`},
		{Backend{Name: "h", URL: "https://x", Credentials: oc(func(o *OAuthClient) { o.Issuer = "" })},
			`gateway: invalid configuration: backend "h": OAuth client credentials need the Issuer they are registered with`},
		{Backend{Name: "h", URL: "https://x", Credentials: oc(func(o *OAuthClient) { o.ClientSecret = "" })},
			`gateway: invalid configuration: backend "h": OAuth client "gw" has neither a ClientSecret nor a PrivateKey`},
		{Backend{Name: "h", URL: "https://x", Credentials: oc(func(o *OAuthClient) { o.AllowedOrigins = []string{"https://a.example/path"} })},
			`gateway: invalid configuration: backend "h": OAuth AllowedOrigins: "https://a.example/path" is not an origin (scheme://host[:port])`},
		{Backend{Name: "h", URL: "http://mcp.example.com/mcp", Credentials: oc(func(*OAuthClient) {})},
			`gateway: invalid configuration: backend "h": oauth: invalid config: ServerURL: oauth: URL is neither https nor loopback: http://mcp.example.com`},
	} {
		_, err := New(srv, Config{Backends: []Backend{tc.b}})
		require.ErrorIs(t, err, ErrInvalidConfig)
		assert.EqualError(t, err, tc.want)
	}
}

// TestCredentialsHeaders: static headers beyond Authorization (an API key) reach the backend
// on every request, beside its Authorization, and nothing of the caller's.
func TestCredentialsHeaders(t *testing.T) {
	var mu sync.Mutex
	var keys, auths []string
	header := func(r streamable.GateRequest, name string) string {
		if v := r.Header.Values(name); len(v) > 0 {
			return string(v[0])
		}
		return ""
	}
	var cfg streamable.ListenerConfig
	cfg.RequestGate = func(ctx context.Context, r streamable.GateRequest) (streamable.GateDecision, error) {
		mu.Lock()
		defer mu.Unlock()
		keys = append(keys, header(r, "X-Api-Key"))
		auths = append(auths, header(r, "Authorization"))
		if header(r, "X-Api-Key") != "k-1" {
			return streamable.GateDecision{Response: &streamable.GateResponse{Status: 403, ContentType: "application/json", Body: []byte(`{"error":"no key"}`)}}, nil
		}
		return streamable.GateDecision{}, nil
	}
	url, _ := serveHTTPWith(t, newBackendServer("a", nil), cfg, nil)
	t.Setenv("GW_TEST_KEY", "k-1")
	t.Setenv("GW_TEST_AUTH", "Bearer backend-own")
	bs, err := ParseConfig([]byte(`{"backends":[{"name":"a","url":"` + url + `","headers":{"X-Api-Key":"env:GW_TEST_KEY","Authorization":"env:GW_TEST_AUTH"}}]}`))
	require.NoError(t, err)
	require.Equal(t, map[string]Secret{"X-Api-Key": "k-1"}, bs[0].Credentials.Headers)
	g, gw := startGateway(t, Config{Backends: bs})
	require.True(t, g.Status()[0].Up, "%v", g.Status()[0].Err)
	assert.Contains(t, callEcho(t, gw), `"text":"a: t"`)
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, keys)
	for i := range keys {
		assert.Equal(t, "k-1", keys[i])
		assert.Equal(t, "Bearer backend-own", auths[i])
	}
}
