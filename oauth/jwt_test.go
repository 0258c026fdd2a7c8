package oauth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/oauth/oauthtest"
)

// TestJWTVerifierAccepts verifies tokens signed with each key type, and reads subject,
// client, issuer, audience, scopes and expiry.
func TestJWTVerifierAccepts(t *testing.T) {
	iss, c := newIssuer(t), newClock()
	v := newJWT(t, iss, testResource, c, nil)
	for _, kid := range []string{oauthtest.KeyRSA, oauthtest.KeyRSAPSS, oauthtest.KeyEC, oauthtest.KeyEd25519} {
		t.Run(kid, func(t *testing.T) {
			info, err := v.Verify(context.Background(), goodToken(t, iss, c, testResource, kid, "mcp:tools files:read"))
			require.NoError(t, err)
			assert.Equal(t, &TokenInfo{Subject: "alice", ClientID: "inspector", Issuer: iss.URL, Audience: []string{testResource},
				Scopes: []string{"mcp:tools", "files:read"}, Expiry: c.Now().Add(time.Hour + DefaultLeeway)}, info)
		})
	}
	t.Run("scp array, audience array", func(t *testing.T) {
		tok := mint(t, iss, oauthtest.Token{Subject: "bob", Audience: []string{"https://other.example", testResource},
			Expiry: c.Now().Add(time.Minute), Extra: map[string]any{"scp": []string{"a", "b"}}})
		info, err := v.Verify(context.Background(), tok)
		require.NoError(t, err)
		assert.Equal(t, []string{"a", "b"}, info.Scopes)
	})
	t.Run("typ application/at+jwt", func(t *testing.T) {
		tok := mint(t, iss, oauthtest.Token{Type: "application/at+jwt", Subject: "bob", Audience: testResource, Expiry: c.Now().Add(time.Minute)})
		_, err := v.Verify(context.Background(), tok)
		require.NoError(t, err)
	})
	t.Run("any typ when allowed", func(t *testing.T) {
		lax := newJWT(t, iss, testResource, c, func(cfg *JWTConfig) { cfg.AllowAnyType = true })
		tok := mint(t, iss, oauthtest.Token{Type: "JWT", Subject: "bob", Audience: testResource, Expiry: c.Now().Add(time.Minute)})
		_, err := lax.Verify(context.Background(), tok)
		require.NoError(t, err)
		_, err = v.Verify(context.Background(), tok)
		require.ErrorIs(t, err, ErrInvalidToken, "strict by default")
	})
}

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// TestJWTVerifierRefuses: every check refuses with ErrInvalidToken, and no error names the
// token.
func TestJWTVerifierRefuses(t *testing.T) {
	iss, c := newIssuer(t), newClock()
	v := newJWT(t, iss, testResource, c, nil)
	now := c.Now()
	valid := oauthtest.Token{Subject: "alice", Audience: testResource, Expiry: now.Add(time.Hour)}
	with := func(f func(*oauthtest.Token)) string {
		tok := valid
		f(&tok)
		return mint(t, iss, tok)
	}
	payload := b64(`{"iss":"` + iss.URL + `","sub":"alice","aud":"` + testResource + `","exp":` + itoa(int(now.Add(time.Hour).Unix())) + `}`)
	rsaPub, err := oauthtest.PublicJWK(oauthtest.KeyRSA)
	require.NoError(t, err)
	pubJSON, err := json.Marshal(rsaPub)
	require.NoError(t, err)
	hmac, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: pubJSON}, (&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", oauthtest.KeyRSA))
	require.NoError(t, err)
	hs, err := hmac.Sign([]byte(`{"iss":"` + iss.URL + `","sub":"alice","aud":"` + testResource + `","exp":` + itoa(int(now.Add(time.Hour).Unix())) + `}`))
	require.NoError(t, err)
	hsToken, err := hs.CompactSerialize()
	require.NoError(t, err)
	good := mint(t, iss, valid)
	parts := strings.Split(good, ".")
	tests := []struct{ name, token string }{
		{"alg none", b64(`{"alg":"none","typ":"at+jwt","kid":"rsa-1"}`) + "." + payload + "."},
		{"HS256 keyed with the published RSA key", hsToken},
		{"not a JWS", "abc.def.ghi"},
		{"JWS JSON serialization", `{"payload":"` + payload + `","signatures":[]}`},
		{"tampered payload", parts[0] + "." + b64(`{"iss":"`+iss.URL+`","sub":"mallory","aud":"`+testResource+`","exp":9999999999}`) + "." + parts[2]},
		{"tampered signature", parts[0] + "." + parts[1] + "." + b64("forged")},
		{"typ JWT", with(func(tk *oauthtest.Token) { tk.Type = "JWT" })},
		{"no typ", with(func(tk *oauthtest.Token) { tk.Type = "-" })},
		{"another issuer", with(func(tk *oauthtest.Token) { tk.Issuer = "https://evil.example" })},
		{"issuer with a trailing slash", with(func(tk *oauthtest.Token) { tk.Issuer = iss.URL + "/" })},
		{"another audience", with(func(tk *oauthtest.Token) { tk.Audience = "https://mcp.example.com" })},
		{"audience with a trailing slash", with(func(tk *oauthtest.Token) { tk.Audience = testResource + "/" })},
		{"no audience", with(func(tk *oauthtest.Token) { tk.Audience = nil })},
		{"no exp", with(func(tk *oauthtest.Token) { tk.Expiry = time.Time{} })},
		{"expired past the leeway", with(func(tk *oauthtest.Token) { tk.Expiry = now.Add(-DefaultLeeway - time.Second) })},
		{"nbf past the leeway", with(func(tk *oauthtest.Token) { tk.NotBefore = now.Add(DefaultLeeway + time.Second) })},
		{"iat in the future past the leeway", with(func(tk *oauthtest.Token) { tk.IssuedAt = now.Add(DefaultLeeway + time.Second) })},
		{"no sub", with(func(tk *oauthtest.Token) { tk.Subject = "" })},
		{"scope neither string nor list", with(func(tk *oauthtest.Token) { tk.Extra = map[string]any{"scope": 42} })},
		{"unknown kid", with(func(tk *oauthtest.Token) { tk.Kid = oauthtest.KeyRSANext })},
		{"no kid, several keys", with(func(tk *oauthtest.Token) { tk.NoKid = true })},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := v.Verify(context.Background(), tc.token)
			require.ErrorIs(t, err, ErrInvalidToken)
			assert.NotContains(t, err.Error(), tc.token)
			for _, p := range strings.Split(tc.token, ".") {
				if len(p) > 8 {
					assert.NotContains(t, err.Error(), p, "no part of the token in the error")
				}
			}
		})
	}
}

// TestJWTClockSkew: exp, nbf and iat are checked with Leeway on either side of the edge.
func TestJWTClockSkew(t *testing.T) {
	iss, c := newIssuer(t), newClock()
	v := newJWT(t, iss, testResource, c, func(cfg *JWTConfig) { cfg.Leeway = 10 * time.Second })
	now := c.Now()
	tok := func(exp, nbf, iat time.Time) string {
		return mint(t, iss, oauthtest.Token{Subject: "a", Audience: testResource, Expiry: exp, NotBefore: nbf, IssuedAt: iat})
	}
	tests := []struct {
		name  string
		token string
		ok    bool
	}{
		{"expired 9 s ago", tok(now.Add(-9*time.Second), time.Time{}, time.Time{}), true},
		{"expired 10 s ago", tok(now.Add(-10*time.Second), time.Time{}, time.Time{}), false},
		{"nbf 9 s ahead", tok(now.Add(time.Hour), now.Add(9*time.Second), time.Time{}), true},
		{"nbf 11 s ahead", tok(now.Add(time.Hour), now.Add(11*time.Second), time.Time{}), false},
		{"iat 9 s ahead", tok(now.Add(time.Hour), time.Time{}, now.Add(9*time.Second)), true},
		{"iat 11 s ahead", tok(now.Add(time.Hour), time.Time{}, now.Add(11*time.Second)), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := v.Verify(context.Background(), tc.token)
			if tc.ok {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, ErrInvalidToken)
			}
		})
	}
}

// TestKeyFits: a key verifies only the algorithms of its type and curve, and only its own
// alg when it names one.
func TestKeyFits(t *testing.T) {
	rsaKey, _ := oauthtest.PublicJWK(oauthtest.KeyRSA)
	ec, _ := oauthtest.PublicJWK(oauthtest.KeyEC)
	ed, _ := oauthtest.PublicJWK(oauthtest.KeyEd25519)
	unnamed := rsaKey
	unnamed.Algorithm = ""
	assert.True(t, keyFits(rsaKey, "RS256"))
	assert.False(t, keyFits(rsaKey, "PS256"), "the key names RS256")
	assert.True(t, keyFits(unnamed, "PS384"))
	assert.False(t, keyFits(unnamed, "ES256"))
	assert.False(t, keyFits(unnamed, "HS256"))
	assert.True(t, keyFits(ec, "ES256"))
	ec.Algorithm = ""
	assert.False(t, keyFits(ec, "ES384"), "P-256 signs ES256 only")
	assert.True(t, keyFits(ed, "EdDSA"))
	assert.False(t, keyFits(ed, "ES256"))
}

func TestNewJWTVerifierConfig(t *testing.T) {
	base := JWTConfig{Issuer: "https://as.example", Audiences: []string{testResource}, JWKS: JWKSConfig{URL: "https://as.example/jwks"}}
	tests := []struct {
		name  string
		tweak func(*JWTConfig)
		want  string
	}{
		{"HMAC", func(c *JWTConfig) { c.Algorithms = []string{"HS256"} }, `JWT algorithm "HS256"`},
		{"none", func(c *JWTConfig) { c.Algorithms = []string{"none"} }, `JWT algorithm "none"`},
		{"empty allowlist", func(c *JWTConfig) { c.Algorithms = []string{} }, "Algorithms is empty"},
		{"no issuer", func(c *JWTConfig) { c.Issuer = "" }, "Issuer is empty"},
		{"no audience", func(c *JWTConfig) { c.Audiences = nil }, "Audiences"},
		{"plain http JWKS", func(c *JWTConfig) { c.JWKS.URL = "http://as.example/jwks" }, "must use https"},
		{"negative leeway", func(c *JWTConfig) { c.Leeway = -1 }, "Leeway"},
		{"refresh above TTL", func(c *JWTConfig) { c.JWKS.MinRefreshInterval = 2 * time.Hour }, "exceeds its TTL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := base
			tc.tweak(&cfg)
			_, err := NewJWTVerifier(cfg)
			require.ErrorIs(t, err, ErrInvalidConfig)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	for _, u := range []string{"http://127.0.0.1:9/jwks", "http://localhost/jwks", "http://[::1]/jwks"} {
		cfg := base
		cfg.JWKS.URL = u
		_, err := NewJWTVerifier(cfg)
		require.NoError(t, err, "loopback http is allowed: %s", u)
	}
}
