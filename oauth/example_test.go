package oauth_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/fastmcp-go/fastmcp/oauth"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// headers is a streamable.Headers of one field each.
type headers map[string]string

func (h headers) Values(name string) [][]byte {
	if v, ok := h[name]; ok {
		return [][]byte{[]byte(v)}
	}
	return nil
}

// anyToken stands in for a JWTVerifier: it admits every token as alice.
type anyToken struct{}

func (anyToken) Verify(context.Context, string) (*oauth.TokenInfo, error) {
	return &oauth.TokenInfo{Subject: "alice", Scopes: []string{"mcp:tools"}}, nil
}

// The gate answers the metadata document without a token, challenges a request without
// one, and admits a verified one with its identity.
func ExampleResourceServer_Gate() {
	rs, err := oauth.New(oauth.Config{
		Resource:             "https://mcp.example.com/mcp",
		AuthorizationServers: []string{"https://auth.example.com"},
		ScopesSupported:      []string{"mcp:tools"},
		RequiredScopes:       []string{"mcp:tools"},
		Verifier:             anyToken{},
	})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	show := func(method, path string, h headers) {
		d, _ := rs.Gate(ctx, streamable.GateRequest{Method: []byte(method), Path: []byte(path), Header: h})
		if d.Response != nil {
			fmt.Println(strings.TrimSpace(fmt.Sprint(d.Response.Status, " ", d.Response.Header["WWW-Authenticate"])))
			if len(d.Response.Body) > 0 {
				fmt.Println(string(d.Response.Body))
			}
			return
		}
		fmt.Println("admitted:", d.Identity.Principal)
	}
	show("GET", "/.well-known/oauth-protected-resource/mcp", headers{})
	show("POST", "/mcp", headers{})
	show("POST", "/mcp", headers{"Authorization": "Bearer a b"})
	show("POST", "/mcp", headers{"Authorization": "Bearer eyJhbGciOi.J9.c2ln"})
	// Output:
	// 200
	// {"resource":"https://mcp.example.com/mcp","authorization_servers":["https://auth.example.com"],"scopes_supported":["mcp:tools"],"bearer_methods_supported":["header"]}
	// 401 Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"
	// 400 Bearer error="invalid_request", error_description="The Authorization header is not a Bearer token", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"
	// {"error":"invalid_request","error_description":"The Authorization header is not a Bearer token"}
	// admitted: alice
}
