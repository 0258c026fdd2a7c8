package clientinterop

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/oauth"
	"github.com/fastmcp-go/fastmcp/oauth/oauthtest"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// endpoint serves a fastmcp core behind the oauth gate over NewHandler; its canonical
// resource is its own loopback URL, as a client reaches it.
func endpoint(t *testing.T, iss *oauthtest.Issuer) string {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	resource := "http://" + ts.Listener.Addr().String() + "/mcp"
	policy := &oauth.ScopePolicy{Tools: map[string][]string{"write": {"files:write"}}}
	core, err := fastmcp.NewServer(fastmcp.Implementation{Name: "protected", Version: "1.0.0"}, &fastmcp.Config{Authorizer: policy})
	require.NoError(t, err)
	whoami := func(ctx context.Context, _ *fastmcp.Request, _ struct{}) (fastmcp.ToolResult, error) {
		info := oauth.TokenInfoFrom(ctx)
		return fastmcp.ToolResult{Text: info.Subject + " [" + strings.Join(info.Scopes, " ") + "]"}, nil
	}
	fastmcp.AddTool(core, fastmcp.Tool{Name: "whoami", Description: "Who am I"}, whoami)
	fastmcp.AddTool(core, fastmcp.Tool{Name: "write", Description: "Needs files:write"}, whoami)
	v, err := oauth.NewJWTVerifier(oauth.JWTConfig{Issuer: iss.URL, Audiences: []string{resource}, JWKS: oauth.JWKSConfig{URL: iss.JWKSURL()}})
	require.NoError(t, err)
	rs, err := oauth.New(oauth.Config{Resource: resource, AuthorizationServers: []string{iss.URL},
		ScopesSupported: []string{"mcp:tools", "files:write"}, RequiredScopes: []string{"mcp:tools"}, Policy: policy, Verifier: v})
	require.NoError(t, err)
	h, err := streamable.NewHandler(core, streamable.Config{RequestGate: rs.Gate, StepUp: rs.StepUp})
	require.NoError(t, err)
	ts.Config.Handler = h
	ts.Start()
	t.Cleanup(func() {
		ts.Close()
		require.NoError(t, h.Close(context.Background()))
	})
	return resource
}

// fetchCode plays the user agent: it follows the authorization URL to the redirect and
// reads the code, state and iss from it.
func fetchCode(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, args.URL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		return nil, errors.New("authorization refused: " + resp.Status)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		return nil, err
	}
	q := loc.Query()
	return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
}

// TestGoSDKAuthorizationCodeFlow: the go-sdk client, given only the endpoint URL, is
// challenged (401), discovers the metadata, authorizes with the challenge's scope and our
// resource, calls a tool with the token; a tool needing more scope gets the 403 step-up
// challenge, and the client re-authorizes with the union of the scopes and succeeds.
func TestGoSDKAuthorizationCodeFlow(t *testing.T) {
	iss, err := oauthtest.NewIssuer()
	require.NoError(t, err)
	defer iss.Close()
	resource := endpoint(t, iss)

	handler, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		PreregisteredClient:      &oauthex.ClientCredentials{ClientID: oauthtest.PublicClient},
		RedirectURL:              "http://127.0.0.1:1/callback",
		AuthorizationCodeFetcher: fetchCode,
	})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk", Version: "1.8.0"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: resource, OAuthHandler: handler}, nil)
	require.NoError(t, err)
	defer session.Close()

	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
	require.NoError(t, err)
	require.Len(t, res.Content, 1)
	assert.Equal(t, "alice [mcp:tools]", res.Content[0].(*mcp.TextContent).Text)

	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "write", Arguments: map[string]any{}})
	require.NoError(t, err)
	require.Len(t, res.Content, 1)
	// go-sdk unites the scopes in no fixed order: compare them as sets.
	text := res.Content[0].(*mcp.TextContent).Text
	assert.True(t, strings.HasPrefix(text, "alice [") && strings.HasSuffix(text, "]"), text)
	assert.ElementsMatch(t, []string{"mcp:tools", "files:write"}, strings.Fields(strings.Trim(strings.TrimPrefix(text, "alice "), "[]")))

	auths := iss.Authorizations()
	require.Len(t, auths, 2, "the 401's scope, then the 403's scopes united with the granted ones")
	assert.Equal(t, oauthtest.Authorization{Scope: "mcp:tools", Resource: resource}, auths[0])
	assert.Equal(t, resource, auths[1].Resource)
	assert.ElementsMatch(t, []string{"mcp:tools", "files:write"}, strings.Fields(auths[1].Scope))
}
