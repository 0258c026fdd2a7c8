package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/oauth/oauthtest"
)

// testServeGatewayScopes: a gateway that is an OAuth resource server applies its scope
// policy to the namespaced names (--oauth-tool-scopes web__bump=…): the backend's tool is
// hidden from tools/list and refused 403 insufficient_scope without the scope, served with
// it, while the backend's other tools need only the token.
func testServeGatewayScopes(t *testing.T, bin string) {
	iss, err := oauthtest.NewIssuer()
	require.NoError(t, err)
	defer iss.Close()
	const resource = "https://edge.example.com/mcp"
	backend := startServe(t, bin, "--addr", "127.0.0.1:0")
	gw := startServe(t, bin, "--addr", "127.0.0.1:0", "--backend", "web="+backend.url, "--backend", "local=stdio:"+bin+" serve --stdio",
		"--oauth-resource", resource, "--oauth-issuer", iss.URL, "--oauth-tool-scopes", "web__bump=counter:write")
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	send := func(method, name, params, token string) (*http.Response, string) {
		b := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params + testMeta + `}}`
		req, err := http.NewRequest(http.MethodPost, gw.url, strings.NewReader(b))
		require.NoError(t, err)
		for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
			"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method, "Authorization": "Bearer " + token} {
			req.Header.Set(k, v)
		}
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
		resp, err := hc.Do(req)
		require.NoError(t, err)
		return resp, readAll(t, resp)
	}
	call := func(tool, token string) (*http.Response, string) {
		return send("tools/call", tool, `"name":"`+tool+`","arguments":{"text":"hi"},`, token)
	}
	mint := func(scope string) string {
		tok, err := iss.Mint(oauthtest.Token{Subject: "alice", Audience: resource, Scope: scope, Expiry: time.Now().Add(time.Hour)})
		require.NoError(t, err)
		return tok
	}
	plain := mint("mcp:tools")

	resp, body := call("web__echo", plain)
	assert.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Contains(t, body, `"text":"hi"`)
	resp, _ = call("web__bump", plain)
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.Contains(t, resp.Header.Get("WWW-Authenticate"), `error="insufficient_scope"`)
	assert.Contains(t, resp.Header.Get("WWW-Authenticate"), `scope="counter:write"`)
	_, body = send("tools/list", "", "", plain)
	assert.Contains(t, body, `"name":"web__echo"`)
	assert.Contains(t, body, `"name":"local__bump"`, "the policy names one backend's tool, not the other's")
	assert.NotContains(t, body, `"name":"web__bump"`, "hidden without its scope")

	resp, body = call("web__bump", mint("mcp:tools counter:write"))
	assert.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.NotContains(t, gw.stderr.String(), plain, "the token is never logged")
}
