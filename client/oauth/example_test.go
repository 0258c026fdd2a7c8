package oauth_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/client/oauth"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	rs "github.com/fastmcp-go/fastmcp/oauth"
	"github.com/fastmcp-go/fastmcp/oauth/oauthtest"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// A client for a protected server: the first call is refused (401), the Provider discovers
// the authorization server, runs the authorization code flow with the pre-registered
// client, and the call goes through with the token.
func Example() {
	iss, _ := oauthtest.NewIssuer() // a test authorization server that consents at once
	defer iss.Close()
	url, stop := exampleServer(iss)
	defer stop()

	p, err := oauth.New(oauth.Config{
		ServerURL:     url,
		ClientID:      oauthtest.PublicClient,
		RedirectURL:   "http://127.0.0.1:1/callback",
		AuthorizeUser: oauth.FetchRedirect(nil), // a program for people: oauth.ListenLoopback
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	c, err := client.Connect(ctx, url, client.Config{Authorizer: p})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	res, err := c.CallTool(ctx, "hello", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(res.Content))
	fmt.Println(p.Stats().Authorizations, "authorization")
	// Output:
	// [{"type":"text","text":"hello, alice"}]
	// 1 authorization
}

// exampleServer is a fastmcp server behind our resource server, trusting iss.
func exampleServer(iss *oauthtest.Issuer) (string, func()) {
	core, _ := fastmcp.NewServer(fastmcp.Implementation{Name: "example", Version: "1"}, nil)
	fastmcp.AddTool(core, fastmcp.Tool{Name: "hello", Description: "Greets"}, func(ctx context.Context, _ *fastmcp.Request, _ struct{}) (fastmcp.ToolResult, error) {
		return fastmcp.ToolResult{Text: "hello, " + rs.TokenInfoFrom(ctx).Subject}, nil
	})
	ts := httptest.NewUnstartedServer(nil)
	url := "http://" + ts.Listener.Addr().String() + "/mcp"
	v, _ := rs.NewJWTVerifier(rs.JWTConfig{Issuer: iss.URL, Audiences: []string{url}, JWKS: rs.JWKSConfig{URL: iss.JWKSURL()}})
	server, _ := rs.New(rs.Config{Resource: url, AuthorizationServers: []string{iss.URL}, ScopesSupported: []string{"mcp:tools"}, Verifier: v})
	h, _ := streamable.NewHandler(core, streamable.Config{RequestGate: server.Gate})
	ts.Config.Handler = h
	ts.Start()
	return url, func() { ts.Close(); _ = h.Close(context.Background()) }
}
