package oauth_test

import (
	"context"
	"crypto"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/client/oauth"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	rs "github.com/fastmcp-go/fastmcp/oauth"
	"github.com/fastmcp-go/fastmcp/oauth/oauthtest"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// protectedEndpoint serves a fastmcp core behind our resource server (package oauth: JWTs
// checked against the test issuer's JWKS, audience the endpoint's URL, tool write needing
// files:write) on host "native" (the fasthttp listener) or "net/http"
// (streamable.NewHandler), in DPoP mode dpop; it returns the endpoint's URL.
func protectedEndpoint(t *testing.T, iss *oauthtest.Issuer, host string, dpop rs.DPoPMode) string {
	t.Helper()
	policy := &rs.ScopePolicy{Tools: map[string][]string{"write": {"files:write"}}}
	core, err := fastmcp.NewServer(fastmcp.Implementation{Name: "protected", Version: "1.0.0"}, &fastmcp.Config{Authorizer: policy})
	require.NoError(t, err)
	whoami := func(ctx context.Context, _ *fastmcp.Request, _ struct{}) (fastmcp.ToolResult, error) {
		info := rs.TokenInfoFrom(ctx)
		text := info.Subject + " [" + strings.Join(info.Scopes, " ") + "]"
		if info.DPoPThumbprint != "" {
			text += " dpop"
		}
		return fastmcp.ToolResult{Text: text}, nil
	}
	fastmcp.AddTool(core, fastmcp.Tool{Name: "whoami", Description: "Who am I"}, whoami)
	fastmcp.AddTool(core, fastmcp.Tool{Name: "write", Description: "Needs files:write"}, whoami)
	// The resource server needs the endpoint's URL, known once listening: the gate reaches
	// it through server, set before the first request.
	var server *rs.ResourceServer
	cfg := streamable.Config{
		RequestGate: func(ctx context.Context, r streamable.GateRequest) (streamable.GateDecision, error) {
			return server.Gate(ctx, r)
		},
		StepUp: func(err *fastmcp.Error) *streamable.GateResponse { return server.StepUp(err) },
	}
	var resource string
	switch host {
	case "native":
		s, err := streamable.New(core, streamable.ListenerConfig{Config: cfg, Addr: "127.0.0.1:0"})
		require.NoError(t, err)
		require.NoError(t, s.Listen())
		resource = s.URL()
		done := make(chan error, 1)
		defer func() { go func() { done <- s.Serve() }() }()
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = s.Shutdown(ctx)
			require.ErrorIs(t, <-done, streamable.ErrServerClosed)
		})
	default:
		ts := httptest.NewUnstartedServer(nil)
		resource = "http://" + ts.Listener.Addr().String() + "/mcp"
		h, err := streamable.NewHandler(core, cfg)
		require.NoError(t, err)
		ts.Config.Handler = h
		defer ts.Start()
		t.Cleanup(func() {
			ts.Close()
			require.NoError(t, h.Close(context.Background()))
		})
	}
	v, err := rs.NewJWTVerifier(rs.JWTConfig{Issuer: iss.URL, Audiences: []string{resource}, JWKS: rs.JWKSConfig{URL: iss.JWKSURL()}})
	require.NoError(t, err)
	server, err = rs.New(rs.Config{Resource: resource, AuthorizationServers: []string{iss.URL},
		ScopesSupported: []string{"mcp:tools", "files:write"}, RequiredScopes: []string{"mcp:tools"}, Policy: policy, Verifier: v,
		DPoP: rs.DPoPConfig{Mode: dpop}})
	require.NoError(t, err)
	return resource
}

// TestEndToEnd: our client, given only the endpoint's URL and the test issuer's
// pre-registered public client, against our resource server, in both eras (and auto) over
// HTTP, on the native listener and on net/http, with bearer tokens and with DPoP-bound ones
// (the server requiring DPoP: its challenge makes the client bind the token): the 401
// starts discovery (PRM, then the issuer's metadata), the authorization code flow (PKCE,
// resource, the RFC 9207 iss) and a real JWT verified against the issuer's JWKS; a tool
// that needs more scope gets the 403 step-up, and the client re-authorizes with the union.
func TestEndToEnd(t *testing.T) {
	type end struct {
		host string
		era  client.Era
	}
	ends := []end{{"native", client.EraModern}, {"native", client.EraLegacy}, {"native", client.EraAuto}, {"net/http", client.EraModern}, {"net/http", client.EraLegacy}}
	for _, dpop := range []rs.DPoPMode{rs.DPoPOff, rs.DPoPRequired} {
		for _, tc := range ends {
			t.Run("dpop="+dpop.String()+"/host="+tc.host+"/era="+tc.era.String(), func(t *testing.T) {
				endToEnd(t, tc.host, tc.era, dpop)
			})
		}
	}
}

func endToEnd(t *testing.T, host string, era client.Era, dpop rs.DPoPMode) {
	iss, err := oauthtest.NewIssuer()
	require.NoError(t, err)
	defer iss.Close()
	resource := protectedEndpoint(t, iss, host, dpop)
	p, err := oauth.New(oauth.Config{ServerURL: resource, ClientID: oauthtest.PublicClient,
		RedirectURL: "http://127.0.0.1:1/callback", AuthorizeUser: oauth.FetchRedirect(nil)})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, resource, client.Config{Era: era, Authorizer: p})
	require.NoError(t, err)
	defer c.Close()

	bound := ""
	if dpop == rs.DPoPRequired {
		bound = " dpop" // the tool saw a DPoP-bound token, its proof checked by the gate
	}
	res, err := c.CallTool(ctx, "whoami", nil)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"text","text":"alice [mcp:tools]`+bound+`"}]`, string(res.Content))
	res, err = c.CallTool(ctx, "write", nil)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"text","text":"alice [mcp:tools files:write]`+bound+`"}]`, string(res.Content))
	res, err = c.CallTool(ctx, "whoami", nil)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"text","text":"alice [mcp:tools files:write]`+bound+`"}]`, string(res.Content), "the stepped-up token, cached")

	assert.Equal(t, []oauthtest.Authorization{{Scope: "mcp:tools", Resource: resource}, {Scope: "mcp:tools files:write", Resource: resource}},
		iss.Authorizations())
	assert.Equal(t, oauth.Stats{Authorizations: 2, TokenRequests: 2}, p.Stats())
}

// TestEndToEndDPoPAuthorizationServer: the authorization server's half of DPoP, seen from the
// wire (TestEndToEnd has the resource server check it): with DPoPAlways, the client's proof at the
// test issuer's token endpoint gets a DPoP-bound JWT (token_type DPoP, cnf.jkt the proof
// key's thumbprint, signed by the issuer's key), and each request then carries it with the
// DPoP scheme and a proof whose ath is the token's hash, signed by that same key.
func TestEndToEndDPoPAuthorizationServer(t *testing.T) {
	iss, err := oauthtest.NewIssuer()
	require.NoError(t, err)
	defer iss.Close()
	resource := protectedEndpoint(t, iss, "net/http", rs.DPoPOff)
	p, err := oauth.New(oauth.Config{ServerURL: resource, ClientID: oauthtest.PublicClient, DPoP: oauth.DPoPAlways,
		RedirectURL: "http://127.0.0.1:1/callback", AuthorizeUser: oauth.FetchRedirect(nil)})
	require.NoError(t, err)
	ctx := context.Background()
	req := client.AuthRequest{Method: "POST", URL: resource}
	require.NoError(t, p.Challenge(ctx, &client.AuthChallenge{Request: req, Status: 401, WWWAuthenticate: []string{`Bearer scope="mcp:tools"`}}))
	cred, err := p.Authorize(ctx, req)
	require.NoError(t, err)
	token, ok := strings.CutPrefix(cred.Authorization, "DPoP ")
	require.True(t, ok, "a DPoP-bound token")

	issuerKey, err := oauthtest.PublicJWK(oauthtest.KeyRSA)
	require.NoError(t, err)
	jws, err := jose.ParseSignedCompact(token, []jose.SignatureAlgorithm{jose.RS256})
	require.NoError(t, err)
	raw, err := jws.Verify(issuerKey)
	require.NoError(t, err)
	var claims struct {
		Aud string `json:"aud"`
		Cnf struct {
			JKT string `json:"jkt"`
		} `json:"cnf"`
	}
	require.NoError(t, json.Unmarshal(raw, &claims))
	assert.Equal(t, resource, claims.Aud)

	proof, err := jose.ParseSignedCompact(cred.DPoP, []jose.SignatureAlgorithm{jose.ES256})
	require.NoError(t, err)
	jwk := proof.Signatures[0].Header.JSONWebKey
	require.NotNil(t, jwk)
	payload, err := proof.Verify(jwk)
	require.NoError(t, err)
	tp, err := jwk.Thumbprint(crypto.SHA256)
	require.NoError(t, err)
	assert.Equal(t, base64.RawURLEncoding.EncodeToString(tp), claims.Cnf.JKT, "the token is bound to the proofs' key")
	var pc struct {
		HTM, HTU, ATH string
	}
	require.NoError(t, json.Unmarshal(payload, &pc))
	sum := sha256.Sum256([]byte(token))
	assert.Equal(t, "POST", pc.HTM)
	assert.Equal(t, resource, pc.HTU)
	assert.Equal(t, base64.RawURLEncoding.EncodeToString(sum[:]), pc.ATH)
}
