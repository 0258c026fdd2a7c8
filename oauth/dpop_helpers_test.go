package oauth

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/oauth/oauthtest"
)

// dpopFixture is a resource server with DPoP in front of the test core, a client key, and
// another key (whose proofs a token bound to key does not accept).
type dpopFixture struct {
	iss        *oauthtest.Issuer
	clock      *clock
	key, other *oauthtest.DPoPKey
	rs         *ResourceServer
}

// testDPoPAlgs are the proof algorithms of the fixture: its challenges say algs="ES256 EdDSA".
var testDPoPAlgs = []string{"ES256", "EdDSA"}

func newDPoPFixture(t testing.TB, dpop DPoPConfig) *dpopFixture {
	t.Helper()
	f := &dpopFixture{iss: newIssuer(t), clock: newClock()}
	var err error
	f.key, err = oauthtest.NewDPoPKey("ES256")
	require.NoError(t, err)
	f.other, err = oauthtest.NewDPoPKey("EdDSA")
	require.NoError(t, err)
	if dpop.Algorithms == nil {
		dpop.Algorithms = testDPoPAlgs
	}
	rs, err := New(Config{
		Resource: testResource, AuthorizationServers: []string{f.iss.URL},
		ScopesSupported: []string{"mcp:tools", "files:write"}, RequiredScopes: []string{"mcp:tools"},
		Policy: testPolicy(), Verifier: newJWT(t, f.iss, testResource, f.clock, nil), Logger: quiet, DPoP: dpop,
	})
	require.NoError(t, err)
	rs.now = f.clock.Now
	f.rs = rs
	return f
}

// token is a token of alice with scope, bound to the key of thumbprint jkt ("" for none).
func (f *dpopFixture) token(t testing.TB, jkt, scope string) string {
	return mint(t, f.iss, oauthtest.Token{Subject: "alice", Audience: testResource, Scope: scope,
		Expiry: f.clock.Now().Add(time.Hour), IssuedAt: f.clock.Now(), Extra: map[string]any{"client_id": "inspector"}, JKT: jkt})
}

// proof is a valid proof of key for a POST to the resource with tok, at the fixture's
// time, changed by tweak.
func (f *dpopFixture) proof(t testing.TB, key *oauthtest.DPoPKey, tok string, tweak func(*oauthtest.Proof)) string {
	t.Helper()
	p := oauthtest.Proof{Method: "POST", URL: testResource, AccessToken: tok, IssuedAt: f.clock.Now()}
	if tweak != nil {
		tweak(&p)
	}
	s, err := key.Sign(p)
	require.NoError(t, err)
	return s
}

// dpopHeaders are the header lines of a DPoP request with tok and proof.
func dpopHeaders(tok, proof string) []string {
	return []string{"Authorization: DPoP " + tok, "DPoP: " + proof}
}

// wantRefusal is a normalized refusal with a body (the Connection: close of a request that
// declared one included), its header value and body as sent.
func wantRefusal(status, wwwAuthenticate, body string, more ...string) string {
	head := "HTTP/1.1 " + status + "\r\ncache-control: no-store\r\nconnection: close\r\ncontent-length: " + itoa(len(body)) + "\r\n"
	if body != "" {
		head += "content-type: application/json\r\n"
	}
	for _, m := range more {
		head += m + "\r\n"
	}
	return head + "www-authenticate: " + wwwAuthenticate + "\r\n\r\n" + body
}
