package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/client"
)

// fakeAS is a resource's metadata and an authorization server on one loopback origin (the
// issuer): each document and endpoint scriptable, each request recorded.
type fakeAS struct {
	t   *testing.T
	srv *httptest.Server
	URL string // the issuer; the resource is URL+"/mcp"

	mu       sync.Mutex
	requests []string // "GET /path?query" of every request, in order
	prmPath  string   // where the resource metadata is served ("" nowhere)
	prm      map[string]any
	asPath   string // where the authorization server metadata is served
	as       map[string]any
	// register answers a registration (default 201 with client_id dyn-client).
	register      func(body map[string]any) (int, map[string]any)
	registrations []map[string]any
	// redirect builds the authorization response's query (default: code, state, iss).
	redirect     func(q url.Values) url.Values
	authorizeQs  []url.Values
	token        func(form url.Values, h http.Header) (int, map[string]any, http.Header)
	tokenForms   []url.Values
	tokenHeaders []http.Header
	issued       int
}

func newFakeAS(t *testing.T) *fakeAS {
	f := &fakeAS{t: t, prmPath: "/.well-known/oauth-protected-resource/mcp", asPath: "/.well-known/oauth-authorization-server"}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	f.URL = f.srv.URL
	f.prm = map[string]any{"resource": f.URL + "/mcp", "authorization_servers": []string{f.URL}}
	f.as = map[string]any{
		"issuer": f.URL, "authorization_endpoint": f.URL + "/authorize", "token_endpoint": f.URL + "/token",
		"registration_endpoint": f.URL + "/register", "code_challenge_methods_supported": []string{"S256"},
		"authorization_response_iss_parameter_supported": true, "response_types_supported": []string{"code"},
	}
	return f
}

func (f *fakeAS) resource() string { return f.URL + "/mcp" }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (f *fakeAS) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r.Method+" "+r.URL.RequestURI())
	switch {
	case r.Method == http.MethodGet && f.prmPath != "" && r.URL.Path == f.prmPath:
		writeJSON(w, 200, f.prm)
	case r.Method == http.MethodGet && r.URL.Path == f.asPath:
		writeJSON(w, 200, f.as)
	case r.Method == http.MethodPost && r.URL.Path == "/register":
		var body map[string]any
		require.NoError(f.t, json.NewDecoder(r.Body).Decode(&body))
		f.registrations = append(f.registrations, body)
		status, resp := 201, map[string]any{"client_id": "dyn-client"}
		if f.register != nil {
			status, resp = f.register(body)
		}
		writeJSON(w, status, resp)
	case r.Method == http.MethodGet && r.URL.Path == "/authorize":
		q := r.URL.Query()
		f.authorizeQs = append(f.authorizeQs, q)
		resp := url.Values{"code": {"code-1"}, "state": {q.Get("state")}, "iss": {f.URL}}
		if f.redirect != nil {
			resp = f.redirect(q)
		}
		to, err := url.Parse(q.Get("redirect_uri"))
		require.NoError(f.t, err)
		to.RawQuery = resp.Encode()
		http.Redirect(w, r, to.String(), http.StatusFound)
	case r.Method == http.MethodPost && r.URL.Path == "/token":
		require.NoError(f.t, r.ParseForm())
		f.tokenForms = append(f.tokenForms, r.PostForm)
		f.tokenHeaders = append(f.tokenHeaders, r.Header.Clone())
		f.issued++
		status, resp, h := 200, map[string]any{"access_token": fmt.Sprintf("tok-%d", f.issued), "token_type": "Bearer", "expires_in": 3600}, http.Header(nil)
		if f.token != nil {
			status, resp, h = f.token(r.PostForm, r.Header)
		}
		for k, v := range h {
			w.Header()[k] = v
		}
		writeJSON(w, status, resp)
	default:
		http.NotFound(w, r)
	}
}

// log returns the requests so far.
func (f *fakeAS) log() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.requests...)
}

// set changes the fake under its lock.
func (f *fakeAS) set(fn func(f *fakeAS)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

const testRedirect = "http://127.0.0.1:1/callback"

// newProvider is a Provider for f's resource: the authorization code flow with
// FetchRedirect, mutated by each fn.
func newProvider(t *testing.T, f *fakeAS, fns ...func(*Config)) *Provider {
	t.Helper()
	cfg := Config{ServerURL: f.resource(), RedirectURL: testRedirect, AuthorizeUser: FetchRedirect(nil)}
	for _, fn := range fns {
		fn(&cfg)
	}
	p, err := New(cfg)
	require.NoError(t, err)
	return p
}

// refusal is a 401 from the resource for a request that carried sent.
func refusal(f *fakeAS, sent string, wwwAuthenticate ...string) *client.AuthChallenge {
	return &client.AuthChallenge{Request: client.AuthRequest{Method: "POST", URL: f.resource()}, Status: 401,
		WWWAuthenticate: wwwAuthenticate, Sent: client.AuthCredentials{Authorization: sent}}
}

// header is the Authorization header the provider sends now.
func header(t *testing.T, p *Provider) string {
	t.Helper()
	c, err := p.Authorize(context.Background(), client.AuthRequest{Method: "POST", URL: p.cfg.ServerURL})
	require.NoError(t, err)
	return c.Authorization
}
