package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/oauth/oauthtest"
)

// TestServeOAuth runs `serve --oauth-*` against a test authorization server on loopback,
// the key set found by discovery: the metadata is public, a request without a token is
// challenged, a token without the tool's scope is refused at the gate (2026-07-28) and the
// tool is left out of its tools/list, a token with it calls the tool.
func TestServeOAuth(t *testing.T) {
	bin := build(t)
	t.Run("resource server", func(t *testing.T) { testServeOAuth(t, bin) })
	t.Run("introspection outage", func(t *testing.T) { testServeOAuthOutage(t, bin) })
	t.Run("DPoP required, with nonces", func(t *testing.T) { testServeOAuthDPoP(t, bin) })
	t.Run("DPoP allowed", func(t *testing.T) { testServeOAuthDPoPAllowed(t, bin) })
	t.Run("usage errors", func(t *testing.T) { testServeOAuthUsage(t, bin) })
	t.Run("gateway scopes on namespaced names", func(t *testing.T) { testServeGatewayScopes(t, bin) }) // serve_gateway_scopes_test.go
	t.Run("help", func(t *testing.T) {
		out, err := exec.Command(bin, "serve", "-h").CombinedOutput()
		require.NoError(t, err)
		for _, flag := range []string{"-oauth-resource", "-oauth-issuer", "-oauth-jwks", "-oauth-introspect", "-oauth-client-id",
			"-oauth-scopes", "-oauth-tool-scopes", "-oauth-audiences", "-oauth-allow-any-typ", "-oauth-leeway", "-oauth-dpop", "-oauth-dpop-nonce", envOAuthClientSecret} {
			assert.Contains(t, string(out), flag)
		}
	})
}

func testServeOAuth(t *testing.T, bin string) {
	iss, err := oauthtest.NewIssuer()
	require.NoError(t, err)
	defer iss.Close()
	const resource = "https://mcp.example.com/mcp"
	s := startServe(t, bin, "--addr", "127.0.0.1:0", "--oauth-resource", resource, "--oauth-issuer", iss.URL,
		"--oauth-scopes", "mcp:tools", "--oauth-tool-scopes", "bump=counter:write")
	base := strings.TrimSuffix(s.url, "/mcp")
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

	resp, err := client.Get(base + "/.well-known/oauth-protected-resource/mcp")
	require.NoError(t, err)
	body := readAll(t, resp)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, `{"resource":"`+resource+`","authorization_servers":["`+iss.URL+`"],"scopes_supported":["mcp:tools","counter:write"],"bearer_methods_supported":["header"]}`, body)

	call := func(tool, token string) (*http.Response, string) {
		b := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"text":"hi"},` + testMeta + `}}`
		req, err := http.NewRequest(http.MethodPost, s.url, strings.NewReader(b))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", tool)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		require.NoError(t, err)
		return resp, readAll(t, resp)
	}
	resp, _ = call("echo", "")
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Equal(t, `Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"`, resp.Header.Get("WWW-Authenticate"))

	mint := func(scope string) string {
		tok, err := iss.Mint(oauthtest.Token{Subject: "alice", Audience: resource, Scope: scope, Expiry: time.Now().Add(time.Hour)})
		require.NoError(t, err)
		return tok
	}
	tools := mint("mcp:tools")
	resp, body = call("echo", tools)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, body, `"text":"hi"`)
	resp, _ = call("bump", tools)
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.Contains(t, resp.Header.Get("WWW-Authenticate"), `error="insufficient_scope"`)
	assert.Contains(t, resp.Header.Get("WWW-Authenticate"), `scope="mcp:tools counter:write"`)
	resp, _ = call("bump", mint("mcp:tools counter:write"))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	origin, err := iss.Mint(oauthtest.Token{Subject: "alice", Audience: "https://mcp.example.com", Scope: "mcp:tools", Expiry: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	resp, _ = call("echo", origin)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "a token for the origin, the root metadata's resource, without --oauth-audiences")

	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + testMeta + `}}`
	req, err := http.NewRequest(http.MethodPost, s.url, strings.NewReader(list))
	require.NoError(t, err)
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list", "Authorization": "Bearer " + tools} {
		req.Header.Set(k, v)
	}
	resp, err = client.Do(req)
	require.NoError(t, err)
	body = readAll(t, resp)
	assert.Contains(t, body, `"name":"echo"`)
	assert.NotContains(t, body, `"name":"bump"`, "hidden without its scope")
	assert.Contains(t, body, `"cacheScope":"private"`)
	assert.NotContains(t, s.stderr.String(), tools, "the token is never logged")
}

// testServeOAuthOutage: with --oauth-introspect, an introspection endpoint that is down is
// answered 503 with Retry-After, never 401 invalid_token, and the same token is admitted
// once it is back; the same junk token repeated costs the endpoint one call.
func testServeOAuthOutage(t *testing.T, bin string) {
	iss, err := oauthtest.NewIssuer()
	require.NoError(t, err)
	defer iss.Close()
	const resource = "https://mcp.example.com/mcp"
	exp := strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)
	iss.Register("opaque-1", `{"active":true,"sub":"alice","aud":"`+resource+`","exp":`+exp+`}`)
	t.Setenv(envOAuthClientSecret, oauthtest.IntrospectionSecret)
	s := startServe(t, bin, "--addr", "127.0.0.1:0", "--oauth-resource", resource, "--oauth-issuer", iss.URL,
		"--oauth-introspect", iss.IntrospectionURL(), "--oauth-client-id", oauthtest.IntrospectionClient)
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	call := func(token string) (*http.Response, string) {
		b := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},` + testMeta + `}}`
		req, err := http.NewRequest(http.MethodPost, s.url, strings.NewReader(b))
		require.NoError(t, err)
		for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
			"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo", "Authorization": "Bearer " + token} {
			req.Header.Set(k, v)
		}
		resp, err := client.Do(req)
		require.NoError(t, err)
		return resp, readAll(t, resp)
	}
	iss.SetFault(oauthtest.FaultDown)
	resp, body := call("opaque-1")
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, "5", resp.Header.Get("Retry-After"))
	assert.Empty(t, resp.Header.Get("WWW-Authenticate"))
	assert.Equal(t, `{"error":"temporarily_unavailable","error_description":"The access token could not be checked now; retry later"}`, body)
	iss.SetFault(oauthtest.NoFault)
	resp, _ = call("opaque-1")
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the outage was not remembered against the token")

	before := iss.Introspections()
	for range 20 {
		resp, _ = call("junk")
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	}
	assert.Equal(t, before+1, iss.Introspections(), "the same junk 20 times: one call")
}

// testServeOAuthUsage: incomplete or invalid --oauth-* flags are usage errors (exit 2).
func testServeOAuthUsage(t *testing.T, bin string) {
	const res, iss = "https://mcp.example.com/mcp", "https://as.example"
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"resource without issuer", []string{"--oauth-resource", res}, "serve: --oauth-resource and --oauth-issuer go together"},
		{"http resource", []string{"--oauth-resource", "http://mcp.example.com/mcp", "--oauth-issuer", iss, "--oauth-jwks", iss + "/jwks"},
			`serve: oauth: invalid config: Resource "http://mcp.example.com/mcp" must use https (http only on a loopback host)`},
		{"plain http key set", []string{"--oauth-resource", res, "--oauth-issuer", iss, "--oauth-jwks", "http://as.example/jwks"},
			`serve: oauth: invalid config: JWKS URL "http://as.example/jwks" must use https (http only on a loopback host)`},
		{"with stdio", []string{"--stdio", "--oauth-resource", res, "--oauth-issuer", iss}, "serve: --oauth-* flags are for HTTP"},
		{"bad tool scopes", []string{"--oauth-tool-scopes", "bump"}, `want tool=scope[,scope], got "bump"`},
		{"bad DPoP mode", []string{"--oauth-resource", res, "--oauth-issuer", iss, "--oauth-dpop", "maybe"}, `invalid value "maybe" for flag -oauth-dpop: want off, allowed or required, got "maybe"`},
		{"DPoP without a resource", []string{"--oauth-dpop", "required"}, "serve: --oauth-resource and --oauth-issuer go together"},
		{"nonces without DPoP", []string{"--oauth-resource", res, "--oauth-issuer", iss, "--oauth-jwks", iss + "/jwks", "--oauth-dpop-nonce"},
			"serve: --oauth-dpop-nonce needs --oauth-dpop allowed or required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, tc.args...)...)
			cmd.Stdin = strings.NewReader("")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			var ee *exec.ExitError
			require.ErrorAs(t, cmd.Run(), &ee)
			assert.Equal(t, 2, ee.ExitCode(), "stderr: %s", stderr.String())
			assert.Contains(t, stderr.String(), tc.want)
			assert.Empty(t, stdout.String())
		})
	}
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

// dpopCall is a 2026-07-28 tools/call of echo to the serve at url with the header lines.
func dpopCall(t *testing.T, url string, header map[string]string) (*http.Response, string) {
	t.Helper()
	b := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},` + testMeta + `}}`
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(b))
	require.NoError(t, err)
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo"} {
		req.Header.Set(k, v)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	require.NoError(t, err)
	return resp, readAll(t, resp)
}

// testServeOAuthDPoP: `serve --oauth-dpop required --oauth-dpop-nonce` advertises DPoP in
// its metadata, challenges a Bearer request with DPoP, asks a proof without its nonce for
// one, admits the proof with the nonce (whose htu is --oauth-resource, not the listener's
// address), and refuses that proof replayed.
func testServeOAuthDPoP(t *testing.T, bin string) {
	iss, err := oauthtest.NewIssuer()
	require.NoError(t, err)
	defer iss.Close()
	const resource = "https://mcp.example.com/mcp"
	s := startServe(t, bin, "--addr", "127.0.0.1:0", "--oauth-resource", resource, "--oauth-issuer", iss.URL,
		"--oauth-scopes", "mcp:tools", "--oauth-dpop", "required", "--oauth-dpop-nonce")
	base := strings.TrimSuffix(s.url, "/mcp")
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Get(base + "/.well-known/oauth-protected-resource/mcp")
	require.NoError(t, err)
	assert.Equal(t, `{"resource":"`+resource+`","authorization_servers":["`+iss.URL+`"],"scopes_supported":["mcp:tools"],"bearer_methods_supported":["header"],`+
		`"dpop_signing_alg_values_supported":["RS256","RS384","RS512","PS256","PS384","PS512","ES256","ES384","ES512","EdDSA"],"dpop_bound_access_tokens_required":true}`, readAll(t, resp))

	key, err := oauthtest.NewDPoPKey("ES256")
	require.NoError(t, err)
	tok, err := iss.Mint(oauthtest.Token{Subject: "alice", Audience: resource, Scope: "mcp:tools", Expiry: time.Now().Add(time.Hour), JKT: key.Thumbprint()})
	require.NoError(t, err)
	const challenge = `algs="RS256 RS384 RS512 PS256 PS384 PS512 ES256 ES384 ES512 EdDSA", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"`
	resp, _ = dpopCall(t, s.url, map[string]string{"Authorization": "Bearer " + tok})
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Equal(t, "DPoP "+challenge, resp.Header.Get("WWW-Authenticate"))

	proof := func(nonce string) string {
		p, err := key.Sign(oauthtest.Proof{Method: "POST", URL: resource, AccessToken: tok, Nonce: nonce})
		require.NoError(t, err)
		return p
	}
	resp, body := dpopCall(t, s.url, map[string]string{"Authorization": "DPoP " + tok, "DPoP": proof("")})
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Equal(t, `DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof", `+challenge, resp.Header.Get("WWW-Authenticate"))
	assert.Equal(t, `{"error":"use_dpop_nonce","error_description":"Resource server requires nonce in DPoP proof"}`, body)
	nonce := resp.Header.Get("DPoP-Nonce")
	require.NotEmpty(t, nonce)

	withNonce := proof(nonce)
	resp, body = dpopCall(t, s.url, map[string]string{"Authorization": "DPoP " + tok, "DPoP": withNonce})
	assert.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Contains(t, body, `"text":"hi"`)
	resp, _ = dpopCall(t, s.url, map[string]string{"Authorization": "DPoP " + tok, "DPoP": withNonce})
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Equal(t, `DPoP error="invalid_dpop_proof", error_description="The DPoP proof has been used before", `+challenge, resp.Header.Get("WWW-Authenticate"))
	assert.NotContains(t, s.stderr.String(), tok, "the token is never logged")
}

// testServeOAuthDPoPAllowed: `serve --oauth-dpop allowed` admits an unbound token as
// Bearer and a bound one with a proof, refuses the bound one as Bearer, and names both
// schemes in its challenge.
func testServeOAuthDPoPAllowed(t *testing.T, bin string) {
	iss, err := oauthtest.NewIssuer()
	require.NoError(t, err)
	defer iss.Close()
	const resource = "https://mcp.example.com/mcp"
	s := startServe(t, bin, "--addr", "127.0.0.1:0", "--oauth-resource", resource, "--oauth-issuer", iss.URL, "--oauth-dpop", "allowed")
	key, err := oauthtest.NewDPoPKey("EdDSA")
	require.NoError(t, err)
	mint := func(jkt string) string {
		tok, err := iss.Mint(oauthtest.Token{Subject: "alice", Audience: resource, Expiry: time.Now().Add(time.Hour), JKT: jkt})
		require.NoError(t, err)
		return tok
	}
	bound, unbound := mint(key.Thumbprint()), mint("")
	resp, _ := dpopCall(t, s.url, nil)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Equal(t, `Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", `+
		`DPoP algs="RS256 RS384 RS512 PS256 PS384 PS512 ES256 ES384 ES512 EdDSA", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"`,
		resp.Header.Get("WWW-Authenticate"))
	resp, _ = dpopCall(t, s.url, map[string]string{"Authorization": "Bearer " + unbound})
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	resp, _ = dpopCall(t, s.url, map[string]string{"Authorization": "Bearer " + bound})
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Contains(t, resp.Header.Get("WWW-Authenticate"), `Bearer error="invalid_token", error_description="The access token is bound to a key: send it with the DPoP scheme and a proof"`)
	proof, err := key.Sign(oauthtest.Proof{Method: "POST", URL: resource, AccessToken: bound})
	require.NoError(t, err)
	resp, body := dpopCall(t, s.url, map[string]string{"Authorization": "DPoP " + bound, "DPoP": proof})
	assert.Equal(t, http.StatusOK, resp.StatusCode, body)
}
