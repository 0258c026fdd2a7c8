package oauth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-jose/go-jose/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/client"
)

// verifyProof checks a proof as a resource server or token endpoint does (RFC 9449 §4.3):
// typ, alg, an embedded public JWK that verifies the signature; returns its claims and the
// key's thumbprint.
func verifyProof(t *testing.T, proof string) (dpopClaims, string) {
	t.Helper()
	sig, err := jose.ParseSignedCompact(proof, []jose.SignatureAlgorithm{jose.ES256})
	require.NoError(t, err)
	require.Len(t, sig.Signatures, 1)
	h := sig.Signatures[0].Header
	assert.Equal(t, "dpop+jwt", h.ExtraHeaders[jose.HeaderType])
	require.NotNil(t, h.JSONWebKey)
	assert.True(t, h.JSONWebKey.IsPublic(), "no private key in the proof")
	payload, err := sig.Verify(h.JSONWebKey)
	require.NoError(t, err)
	var c dpopClaims
	require.NoError(t, json.Unmarshal(payload, &c))
	tp, err := h.JSONWebKey.Thumbprint(crypto.SHA256)
	require.NoError(t, err)
	return c, base64.RawURLEncoding.EncodeToString(tp)
}

// dpopAS makes f a DPoP authorization server: it lists ES256, answers a proof-less request
// as ever, and a proof with a DPoP token; with nonce set it first answers use_dpop_nonce.
func dpopAS(t *testing.T, f *fakeAS, nonce string) *[]string {
	var proofs []string
	f.as["dpop_signing_alg_values_supported"] = []string{"ES256"}
	f.token = func(_ url.Values, h http.Header) (int, map[string]any, http.Header) {
		p := h.Get("DPoP")
		if p == "" {
			return 200, map[string]any{"access_token": "plain", "token_type": "Bearer"}, nil
		}
		proofs = append(proofs, p)
		c, _ := verifyProof(t, p)
		if nonce != "" && c.Nonce != nonce {
			return 400, map[string]any{"error": "use_dpop_nonce"}, http.Header{"Dpop-Nonce": {nonce}}
		}
		return 200, map[string]any{"access_token": "bound.token", "token_type": "DPoP", "expires_in": 60}, nil
	}
	return &proofs
}

// TestDPoP: a resource that challenges with the DPoP scheme gets a DPoP-bound token: a
// valid proof at the token endpoint (again with its nonce when it asks), then on every
// request "DPoP <token>" with a fresh proof (htm, htu, iat, ath, the resource's nonce).
func TestDPoP(t *testing.T) {
	ctx := context.Background()
	f := newFakeAS(t)
	proofs := dpopAS(t, f, "as-nonce-1")
	now := time.Now()
	p := newProvider(t, f)
	p.now = func() time.Time { return now }
	require.NoError(t, p.Challenge(ctx, refusal(f, "", `DPoP resource_metadata="`+f.URL+`/.well-known/oauth-protected-resource/mcp"`)))

	require.Len(t, *proofs, 2, "the first proof, then the one with the server's nonce")
	first, jkt := verifyProof(t, (*proofs)[0])
	again, jkt2 := verifyProof(t, (*proofs)[1])
	assert.Equal(t, jkt, jkt2)
	assert.Equal(t, p.dpop.jkt, jkt)
	for i, c := range []dpopClaims{first, again} {
		assert.Equal(t, "POST", c.HTM)
		assert.Equal(t, f.URL+"/token", c.HTU)
		assert.Equal(t, now.Unix(), c.IAT)
		assert.Empty(t, c.ATH, "no access token at the token endpoint")
		assert.Len(t, c.JTI, 26, "proof %d", i)
	}
	assert.Empty(t, first.Nonce)
	assert.Equal(t, "as-nonce-1", again.Nonce)
	assert.NotEqual(t, first.JTI, again.JTI)

	req := client.AuthRequest{Method: "POST", URL: f.resource()}
	c1, err := p.Authorize(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, "DPoP bound.token", c1.Authorization)
	claims, k := verifyProof(t, c1.DPoP)
	assert.Equal(t, jkt, k, "the same key binds every proof")
	assert.Equal(t, dpopClaims{JTI: claims.JTI, HTM: "POST", HTU: f.resource(), IAT: now.Unix(), ATH: tokenHash("bound.token")}, claims)

	// The resource asks for its nonce: kept, and in the next proof; a fresh jti each time.
	nonceCh := refusal(f, c1.Authorization, `DPoP error="use_dpop_nonce", resource_metadata="x"`)
	nonceCh.DPoPNonce = "rs-nonce-1"
	require.NoError(t, p.Challenge(ctx, nonceCh))
	c2, err := p.Authorize(ctx, client.AuthRequest{Method: "GET", URL: f.resource()})
	require.NoError(t, err)
	claims2, _ := verifyProof(t, c2.DPoP)
	assert.Equal(t, "rs-nonce-1", claims2.Nonce)
	assert.Equal(t, "GET", claims2.HTM)
	assert.NotEqual(t, claims.JTI, claims2.JTI)
	assert.Len(t, *proofs, 2, "a nonce costs no new token")

	nonceCh.DPoPNonce = ""
	require.ErrorIs(t, p.Challenge(ctx, nonceCh), ErrForbidden, "use_dpop_nonce without a nonce")
}

// TestDPoPModes: DPoPAuto binds only when the resource asks; DPoPNever never; DPoPAlways
// always; an authorization server that answers a proof with a Bearer token gets its token
// sent as Bearer.
func TestDPoPModes(t *testing.T) {
	ctx := context.Background()
	for name, tc := range map[string]struct {
		mode      DPoPMode
		challenge string
		prm       map[string]any
		want      string
	}{
		"auto, bearer resource":  {DPoPAuto, `Bearer`, nil, "Bearer plain"},
		"auto, DPoP challenge":   {DPoPAuto, `DPoP`, nil, "DPoP bound.token"},
		"auto, DPoP in metadata": {DPoPAuto, `Bearer`, map[string]any{"dpop_signing_alg_values_supported": []string{"ES256"}}, "DPoP bound.token"},
		"never":                  {DPoPNever, `DPoP`, nil, "Bearer plain"},
		"always":                 {DPoPAlways, `Bearer`, nil, "DPoP bound.token"},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFakeAS(t)
			dpopAS(t, f, "")
			for k, v := range tc.prm {
				f.prm[k] = v
			}
			p := newProvider(t, f, func(c *Config) { c.DPoP = tc.mode })
			require.NoError(t, p.Challenge(ctx, refusal(f, "", tc.challenge)))
			assert.Equal(t, tc.want, header(t, p))
		})
	}
	t.Run("a proof answered with Bearer", func(t *testing.T) {
		f := newFakeAS(t)
		f.as["dpop_signing_alg_values_supported"] = []string{"ES256"}
		p := newProvider(t, f, func(c *Config) { c.DPoP = DPoPAlways })
		require.NoError(t, p.Challenge(ctx, refusal(f, "")))
		assert.NotEmpty(t, f.tokenHeaders[0].Get("DPoP"))
		cred, err := p.Authorize(ctx, client.AuthRequest{Method: "POST", URL: f.resource()})
		require.NoError(t, err)
		assert.Equal(t, client.AuthCredentials{Authorization: "Bearer tok-1"}, cred, "no proof for a bearer token")
	})
	t.Run("an authorization server without ES256", func(t *testing.T) {
		f := newFakeAS(t)
		dpopAS(t, f, "")
		f.as["dpop_signing_alg_values_supported"] = []string{"RS256"}
		p := newProvider(t, f)
		require.NoError(t, p.Challenge(ctx, refusal(f, "", "DPoP")))
		assert.Equal(t, "Bearer plain", header(t, p))
	})
}

// TestDPoPKey: a configured key signs the proofs.
func TestDPoPKey(t *testing.T) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	d, err := newDPoPKey(k)
	require.NoError(t, err)
	proof, err := d.proof("POST", "https://rs.example.com/mcp", "", "", time.Now())
	require.NoError(t, err)
	_, jkt := verifyProof(t, proof)
	tp, err := (&jose.JSONWebKey{Key: &k.PublicKey}).Thumbprint(crypto.SHA256)
	require.NoError(t, err)
	assert.Equal(t, base64.RawURLEncoding.EncodeToString(tp), jkt)
}

func TestNonces(t *testing.T) {
	var n nonces
	n.set("https://RS.example.com:8443/mcp?x", "abc")
	assert.Equal(t, "abc", n.get("https://rs.example.com:8443/other"))
	assert.Empty(t, n.get("https://rs.example.com/mcp"), "another origin")
	for _, bad := range []string{"has space", `q"uote`, "back\\slash", "ctl\x01"} {
		n.set("https://a.example", bad)
		assert.Empty(t, n.get("https://a.example"), bad)
	}
	for i := range maxNonces + 10 {
		n.set("https://h"+string(rune('a'+i%26))+string(rune('a'+i/26))+".example", "v")
	}
	assert.LessOrEqual(t, len(n.m), maxNonces)
	assert.Equal(t, "https://h.example", origin("HTTPS://H.example"))
	assert.Equal(t, "nourl", origin("nourl"))
}

// FuzzAppendJSONString: a proof's hand-written claims decode back to their values.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "POST", `a"b\c`, "\x00\x1f\x7f", "https://h/p%20q", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return // header values and URLs here are ASCII; JSON would replace bad UTF-8
		}
		var got string
		require.NoError(t, json.Unmarshal(appendJSONString(nil, s), &got))
		assert.Equal(t, s, got)
	})
}
