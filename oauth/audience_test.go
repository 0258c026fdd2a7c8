package oauth

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/oauth/oauthtest"
)

// TestRootMetadataAudience: the root metadata document names the origin as the resource,
// so a client that discovered it asks for tokens for the origin: the resource server admits
// them with every verifier of this package, though the verifier's Audiences list only the
// endpoint URL. Other audiences stay refused.
func TestRootMetadataAudience(t *testing.T) {
	const origin = "https://mcp.example.com"
	iss, c := newIssuer(t), newClock()
	exp := itoa(int(c.Now().Add(time.Hour).Unix()))
	iss.Register("opaque-origin", `{"active":true,"sub":"alice","aud":"`+origin+`","exp":`+exp+`}`)
	iss.Register("opaque-other", `{"active":true,"sub":"alice","aud":"https://mcp.example.com/other","exp":`+exp+`}`)
	jwt := func() Verifier { return newJWT(t, iss, testResource, c, nil) }
	for _, tc := range []struct {
		name            string
		verifier        Verifier
		origin, another string
	}{
		{"jwt", jwt(), goodToken(t, iss, c, origin, oauthtest.KeyEC, ""), goodToken(t, iss, c, "https://mcp.example.com/other", oauthtest.KeyEC, "")},
		{"introspection", newIntrospection(t, iss, c, nil), "opaque-origin", "opaque-other"},
		{"by issuer", ByIssuer{iss.URL: jwt()}, goodToken(t, iss, c, origin, oauthtest.KeyEd25519, ""), goodToken(t, iss, c, origin+"/", oauthtest.KeyEd25519, "")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := New(Config{Resource: testResource, AuthorizationServers: []string{iss.URL}, Verifier: tc.verifier, Logger: quiet})
			require.NoError(t, err)
			rs.now = c.Now
			root, _ := rs.Gate(context.Background(), gateRequest("GET", WellKnownPath))
			require.NotNil(t, root.Response)
			assert.Contains(t, string(root.Response.Body), `"resource":"`+origin+`"`)

			d, err := rs.Gate(context.Background(), gateRequest("POST", "/mcp", "Authorization", "Bearer "+tc.origin))
			require.NoError(t, err)
			require.NotNil(t, d.Identity, "a token for the root document's resource is admitted")
			assert.Equal(t, "alice", d.Identity.Principal)
			d, err = rs.Gate(context.Background(), gateRequest("POST", "/mcp", "Authorization", "Bearer "+tc.another))
			require.NoError(t, err)
			require.NotNil(t, d.Response)
			assert.Equal(t, 401, d.Response.Status, "another resource of the origin is not ours")
		})
	}
}

// TestOmitRootMetadata: without the root document, the origin is no audience of ours: the
// root path needs a token like any other, and a token for the origin is refused.
func TestOmitRootMetadata(t *testing.T) {
	iss, c := newIssuer(t), newClock()
	rs, err := New(Config{Resource: testResource, AuthorizationServers: []string{iss.URL}, Verifier: newJWT(t, iss, testResource, c, nil),
		OmitRootMetadata: true, Logger: quiet})
	require.NoError(t, err)
	rs.now = c.Now
	d, err := rs.Gate(context.Background(), gateRequest("GET", WellKnownPath))
	require.NoError(t, err)
	require.NotNil(t, d.Response)
	assert.Equal(t, 401, d.Response.Status, "no root document")
	d, err = rs.Gate(context.Background(), gateRequest("GET", WellKnownPath+"/mcp"))
	require.NoError(t, err)
	assert.Equal(t, 200, d.Response.Status, "the path-based document stays")
	d, err = rs.Gate(context.Background(), gateRequest("POST", "/mcp", "Authorization", "Bearer "+goodToken(t, iss, c, "https://mcp.example.com", oauthtest.KeyEC, "")))
	require.NoError(t, err)
	require.NotNil(t, d.Response)
	assert.Equal(t, 401, d.Response.Status, "a token for the origin is not for us")
	d, err = rs.Gate(context.Background(), gateRequest("POST", "/mcp", "Authorization", "Bearer "+goodToken(t, iss, c, testResource, oauthtest.KeyEC, "")))
	require.NoError(t, err)
	assert.NotNil(t, d.Identity)
}
