package oauth

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/oauth/oauthtest"
)

// TestByIssuer: two authorization servers, each token verified by its own issuer's
// verifier; equal subjects of the two become distinct principals; a token of a third
// issuer, of an issuer spelled with a trailing slash, or no JWT, is refused.
func TestByIssuer(t *testing.T) {
	a, b, c := newIssuer(t), newIssuer(t), newClock()
	rogue := newIssuer(t)
	v := ByIssuer{a.URL: newJWT(t, a, testResource, c, nil), b.URL: newJWT(t, b, testResource, c, nil)}
	rs, err := New(Config{Resource: testResource, AuthorizationServers: []string{a.URL, b.URL}, Verifier: v, Logger: quiet})
	require.NoError(t, err)
	rs.now = c.Now
	principal := func(tok string) string {
		d, err := rs.Gate(context.Background(), gateRequest("POST", "/mcp", "Authorization", "Bearer "+tok))
		require.NoError(t, err)
		if d.Identity == nil {
			return "refused"
		}
		return d.Identity.Principal
	}
	assert.Equal(t, a.URL+" alice", principal(goodToken(t, a, c, testResource, oauthtest.KeyEC, "")))
	assert.Equal(t, b.URL+" alice", principal(goodToken(t, b, c, testResource, oauthtest.KeyEd25519, "")))
	assert.Equal(t, "refused", principal(goodToken(t, rogue, c, testResource, oauthtest.KeyEC, "")))
	slash := mint(t, rogue, oauthtest.Token{Issuer: a.URL + "/", Subject: "mallory", Audience: testResource, Expiry: c.Now().Add(time.Hour)})
	assert.Equal(t, "refused", principal(slash), "issuers compare exactly")
	assert.Equal(t, "refused", principal("opaque-token"))

	_, err = New(Config{Resource: testResource, AuthorizationServers: []string{a.URL}, Verifier: v})
	require.ErrorIs(t, err, ErrInvalidConfig, "every issuer of ByIssuer must be listed")
}

func TestPeekIssuer(t *testing.T) {
	for _, tc := range []struct {
		token, iss string
		ok         bool
	}{
		{"e30." + b64(`{"iss":"https://as"}`) + ".sig", "https://as", true},
		{"e30." + b64(`{"iss":""}`) + ".sig", "", false},
		{"e30." + b64(`{"iss":1}`) + ".sig", "", false},
		{"e30.%%%.sig", "", false},
		{"nodots", "", false},
		{"one.dot", "", false},
	} {
		iss, ok := peekIssuer(tc.token)
		assert.Equal(t, tc.ok, ok, tc.token)
		assert.Equal(t, tc.iss, iss, tc.token)
	}
}
