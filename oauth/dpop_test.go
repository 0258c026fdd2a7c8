package oauth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/oauth/oauthtest"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// gateDPoP runs the fixture's gate on a DPoP request of method to path with tok and proof.
func (f *dpopFixture) gateDPoP(t testing.TB, tok, proof string) streamable.GateDecision {
	t.Helper()
	d, err := f.rs.Gate(context.Background(), gateRequest("POST", "/mcp", "Authorization", "DPoP "+tok, "DPoP", proof))
	require.NoError(t, err)
	return d
}

// refusedFor asserts that d is a 401 whose challenge names error code and description.
func refusedFor(t testing.TB, d streamable.GateDecision, code, description string) {
	t.Helper()
	require.NotNil(t, d.Response, "refused")
	assert.Nil(t, d.Identity)
	assert.Contains(t, d.Response.Header["WWW-Authenticate"], `error="`+code+`", error_description="`+description+`"`)
}

func TestDPoPConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  DPoPConfig
		want string
	}{
		{"unknown mode", DPoPConfig{Mode: 3}, "DPoP Mode 3 is not off, allowed or required"},
		{"nonces when off", DPoPConfig{RequireNonce: true}, "DPoP nonces need DPoP Mode allowed or required"},
		{"no algorithm", DPoPConfig{Mode: DPoPAllowed, Algorithms: []string{}}, "DPoP Algorithms is empty"},
		{"HMAC", DPoPConfig{Mode: DPoPAllowed, Algorithms: []string{"HS256"}}, `DPoP algorithm "HS256" is not an asymmetric signature algorithm`},
		{"none", DPoPConfig{Mode: DPoPAllowed, Algorithms: []string{"none"}}, `DPoP algorithm "none" is not an asymmetric`},
		{"short nonce key", DPoPConfig{Mode: DPoPAllowed, RequireNonce: true, NonceKey: make([]byte, 16)}, "DPoP NonceKey has 16 bytes, fewer than 32"},
		{"negative window", DPoPConfig{Mode: DPoPAllowed, ProofWindow: -1}, "DPoP ProofWindow -1ns is negative"},
		{"negative size", DPoPConfig{Mode: DPoPAllowed, MaxProofBytes: -1}, "DPoP MaxProofBytes -1 is negative"},
		{"negative replay cache", DPoPConfig{Mode: DPoPAllowed, MaxProofs: -1}, "DPoP MaxProofs -1 is negative"},
		{"negative nonce lifetime", DPoPConfig{Mode: DPoPAllowed, NonceLifetime: -1}, "DPoP NonceLifetime -1ns is negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(Config{Resource: testResource, AuthorizationServers: []string{"https://as.example"}, Verifier: verifierFunc(nil), DPoP: tc.cfg})
			require.ErrorIs(t, err, ErrInvalidConfig)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	rs, err := New(Config{Resource: testResource, AuthorizationServers: []string{"https://as.example"}, Verifier: verifierFunc(nil), DPoP: DPoPConfig{Mode: DPoPRequired}})
	require.NoError(t, err)
	got := rs.cfg.DPoP
	assert.Equal(t, DefaultAlgorithms(), got.Algorithms)
	assert.Equal(t, DefaultDPoPProofWindow, got.ProofWindow)
	assert.Equal(t, DefaultMaxDPoPProofBytes, got.MaxProofBytes)
	assert.Equal(t, DefaultMaxDPoPProofs, got.MaxProofs)
	assert.Equal(t, DefaultDPoPNonceLifetime, got.NonceLifetime)
	assert.Equal(t, `DPoP algs="RS256 RS384 RS512 PS256 PS384 PS512 ES256 ES384 ES512 EdDSA", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"`,
		rs.dpop.missing.Header["WWW-Authenticate"])

	for _, s := range []string{"off", "allowed", "required"} {
		m, err := ParseDPoPMode(s)
		require.NoError(t, err)
		assert.Equal(t, s, m.String())
	}
	_, err = ParseDPoPMode("Required")
	require.ErrorIs(t, err, ErrInvalidConfig)
}

// TestDPoPReplayCache: a proof is remembered until its expiry (and at most half a window
// more), a replay within it is seen, and a full cache refuses to remember rather than
// forget.
func TestDPoPReplayCache(t *testing.T) {
	const window = 10 * time.Second
	now := time.Unix(1_000_000, 0)
	c := newReplayCache(window, 3)
	a, b := newReplayKey("jkt", "a"), newReplayKey("jkt", "b")
	assert.NotEqual(t, newReplayKey("jkt1", "a"), newReplayKey("jkt2", "a"), "the same jti of two keys")
	assert.NotEqual(t, newReplayKey("jk", "ta"), newReplayKey("jkt", "a"), "the key and jti are delimited")
	expires := now.Add(window)
	assert.Equal(t, replayFresh, c.remember(a, expires, now))
	assert.Equal(t, replaySeen, c.remember(a, expires, now.Add(window-time.Millisecond)))
	assert.Equal(t, replayFresh, c.remember(b, expires, now))
	assert.Equal(t, replayFresh, c.remember(newReplayKey("jkt", "c"), now.Add(3*window), now))
	assert.Equal(t, replayFull, c.remember(newReplayKey("jkt", "d"), expires, now))
	assert.Equal(t, replaySeen, c.remember(a, expires, now), "full, it still sees a replay")
	assert.Equal(t, 3, c.len())

	later := expires.Add(window / 2) // a and b's bucket has ended
	assert.Equal(t, replayFresh, c.remember(newReplayKey("jkt", "d"), later.Add(window), later))
	assert.Equal(t, 2, c.len(), "a and b forgotten, c and d kept")
	assert.Equal(t, replaySeen, c.remember(newReplayKey("jkt", "c"), now.Add(3*window), later))
}

// TestDPoPReplayLimit: with MaxProofs 2, the third distinct proof of the window gets 503
// with Retry-After and is not admitted; once the window has passed, proofs are admitted
// again.
func TestDPoPReplayLimit(t *testing.T) {
	f := newDPoPFixture(t, DPoPConfig{Mode: DPoPRequired, MaxProofs: 2, ProofWindow: 10 * time.Second})
	tok := f.token(t, f.key.Thumbprint(), "mcp:tools")
	for range 2 {
		require.NotNil(t, f.gateDPoP(t, tok, f.proof(t, f.key, tok, nil)).Identity)
	}
	d := f.gateDPoP(t, tok, f.proof(t, f.key, tok, nil))
	require.NotNil(t, d.Response)
	assert.Nil(t, d.Identity)
	assert.Equal(t, http.StatusServiceUnavailable, d.Response.Status)
	assert.Equal(t, "5", d.Response.Header["Retry-After"])
	assert.JSONEq(t, `{"error":"temporarily_unavailable","error_description":"The DPoP proof could not be checked now; retry later"}`, string(d.Response.Body))
	assert.Equal(t, int64(1), f.rs.Stats().Unavailable)
	f.clock.Advance(16 * time.Second) // past iat + window + window/2
	require.NotNil(t, f.gateDPoP(t, tok, f.proof(t, f.key, tok, nil)).Identity, "the old proofs are forgotten")
}

// TestDPoPNonceRotation: a nonce is accepted in its period and the next, refused after;
// the refusal names the current one; replicas with the same NonceKey accept each other's.
func TestDPoPNonceRotation(t *testing.T) {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	cfg := DPoPConfig{Mode: DPoPRequired, RequireNonce: true, NonceLifetime: time.Minute, NonceKey: key}
	f := newDPoPFixture(t, cfg)
	tok := f.token(t, f.key.Thumbprint(), "mcp:tools")
	nonceOf := func(d streamable.GateDecision) string {
		t.Helper()
		refusedFor(t, d, "use_dpop_nonce", "Resource server requires nonce in DPoP proof")
		return d.Response.Header["DPoP-Nonce"]
	}
	first := nonceOf(f.gateDPoP(t, tok, f.proof(t, f.key, tok, nil)))
	withNonce := func(n string) string {
		return f.proof(t, f.key, tok, func(p *oauthtest.Proof) { p.Nonce = n })
	}
	require.NotNil(t, f.gateDPoP(t, tok, withNonce(first)).Identity)

	f.clock.Advance(time.Minute) // the next period: the first nonce is the previous one
	require.NotNil(t, f.gateDPoP(t, tok, withNonce(first)).Identity, "accepted for a second lifetime")
	second := nonceOf(f.gateDPoP(t, tok, withNonce("stale")))
	assert.NotEqual(t, first, second)

	f.clock.Advance(time.Minute)
	third := nonceOf(f.gateDPoP(t, tok, withNonce(first)))
	assert.NotEqual(t, second, third)
	require.NotNil(t, f.gateDPoP(t, tok, withNonce(second)).Identity)

	replica := newDPoPFixture(t, cfg)
	replica.clock = f.clock
	replica.rs.now = f.clock.Now
	d, err := replica.rs.Gate(context.Background(), gateRequest("POST", "/mcp", "Authorization", "DPoP "+tok, "DPoP", withNonce(third)))
	require.NoError(t, err)
	require.NotNil(t, d.Response, "the replica's issuer did not sign tok")
	assert.Contains(t, d.Response.Header["WWW-Authenticate"], `error="invalid_token"`, "the nonce passed: the token was checked")
	assert.Equal(t, int64(3), f.rs.Stats().NonceRequired)
}

// TestDPoPProofLimits: a configured ProofWindow and MaxProofBytes replace the defaults.
func TestDPoPProofLimits(t *testing.T) {
	f := newDPoPFixture(t, DPoPConfig{Mode: DPoPRequired, ProofWindow: 10 * time.Second})
	tok := f.token(t, f.key.Thumbprint(), "mcp:tools")
	at := func(d time.Duration) string {
		return f.proof(t, f.key, tok, func(p *oauthtest.Proof) { p.IssuedAt = f.clock.Now().Add(d) })
	}
	require.NotNil(t, f.gateDPoP(t, tok, at(-10*time.Second)).Identity)
	require.NotNil(t, f.gateDPoP(t, tok, at(10*time.Second)).Identity)
	refusedFor(t, f.gateDPoP(t, tok, at(-11*time.Second)), "invalid_dpop_proof", describeProof[proofTime])
	refusedFor(t, f.gateDPoP(t, tok, at(11*time.Second)), "invalid_dpop_proof", describeProof[proofTime])

	proof := f.proof(t, f.key, tok, nil)
	small := newDPoPFixture(t, DPoPConfig{Mode: DPoPRequired, MaxProofBytes: len(proof) - 1})
	small.rs.cfg.Verifier = f.rs.cfg.Verifier
	small.rs.verifier = f.rs.verifier
	small.rs.now = f.clock.Now
	d, err := small.rs.Gate(context.Background(), gateRequest("POST", "/mcp", "Authorization", "DPoP "+tok, "DPoP", proof))
	require.NoError(t, err)
	refusedFor(t, d, "invalid_dpop_proof", describeProof[proofMalformed])
	require.NotNil(t, f.gateDPoP(t, tok, proof).Identity, "the same proof within the default limit")
	assert.Greater(t, DefaultMaxDPoPProofBytes, len(proof))
}

// rawProof signs header and claims as they are with a P-256 key (ES256) or an RSA key
// (RS256), for proofs the test helpers would not make.
func rawProof(t testing.TB, key crypto.Signer, header, claims map[string]any) string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	input := enc(header) + "." + enc(claims)
	sum := sha256.Sum256([]byte(input))
	var sig []byte
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		r, s, err := ecdsa.Sign(rand.Reader, k, sum[:])
		require.NoError(t, err)
		sig = make([]byte, 64)
		r.FillBytes(sig[:32])
		s.FillBytes(sig[32:])
	case *rsa.PrivateKey:
		var err error
		sig, err = rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, sum[:])
		require.NoError(t, err)
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// TestParseProof: the proof checks that need no request (RFC 9449 §4.3 checks 2 to 7).
func TestParseProof(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	pub := jose.JSONWebKey{Key: &key.PublicKey}
	priv := jose.JSONWebKey{Key: key}
	other, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	require.NoError(t, err)
	claims := map[string]any{"jti": "j1", "htm": "POST", "htu": testResource, "iat": 1700000000, "ath": "x", "nonce": "n"}
	header := func(kv ...any) map[string]any {
		h := map[string]any{"typ": "dpop+jwt", "alg": "ES256", "jwk": pub}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(h, kv[i].(string))
				continue
			}
			h[kv[i].(string)] = kv[i+1]
		}
		return h
	}
	without := func(name string) map[string]any {
		c := map[string]any{}
		for k, v := range claims {
			if k != name {
				c[k] = v
			}
		}
		return c
	}
	algs := signatureAlgorithms(DefaultAlgorithms())
	good := rawProof(t, key, header(), claims)
	p, ok := parseProof(good, algs)
	require.True(t, ok)
	thumb, err := pub.Thumbprint(crypto.SHA256)
	require.NoError(t, err)
	assert.Equal(t, dpopProof{jkt: base64.RawURLEncoding.EncodeToString(thumb), jti: "j1", htm: "POST", htu: testResource, iat: 1700000000, ath: "x", nonce: "n"}, p)
	p, ok = parseProof(rawProof(t, key, header("typ", "application/DPoP+JWT"), claims), algs)
	assert.True(t, ok, "typ with its media type prefix, any case")
	assert.Equal(t, 1.7e9, p.iat)

	small, err := rsa.GenerateKey(rand.Reader, 1024)
	require.NoError(t, err)
	unsigned := func(h map[string]any) string {
		s := rawProof(t, key, h, claims)
		return s[:strings.LastIndex(s, ".")+1]
	}
	otherSigned := rawProof(t, key, header(), without("nonce"))
	for name, proof := range map[string]string{
		"no typ":                      rawProof(t, key, header("typ", nil), claims),
		"typ JWT":                     rawProof(t, key, header("typ", "JWT"), claims),
		"alg none":                    unsigned(header("alg", "none")),
		"no signature":                unsigned(header()),
		"alg HS256":                   rawProof(t, key, header("alg", "HS256"), claims),
		"alg of another curve":        rawProof(t, key, header("alg", "ES384"), claims),
		"no jwk":                      rawProof(t, key, header("jwk", nil), claims),
		"a private jwk":               rawProof(t, key, header("jwk", priv), claims),
		"jwk of another key":          rawProof(t, key, header("jwk", jose.JSONWebKey{Key: &other.PublicKey}), claims),
		"jwk of a symmetric key":      rawProof(t, key, header("jwk", map[string]string{"kty": "oct", "k": "c2VjcmV0"}), claims),
		"jwk of a small RSA key":      rawProof(t, small, header("alg", "RS256", "jwk", jose.JSONWebKey{Key: &small.PublicKey}), claims),
		"jwk whose alg is another":    rawProof(t, key, header("jwk", jose.JSONWebKey{Key: &key.PublicKey, Algorithm: "ES384"}), claims),
		"unsupported critical header": rawProof(t, key, header("crit", []string{"exp"}, "exp", 1), claims),
		"unencoded payload (b64)":     rawProof(t, key, header("crit", []string{"b64"}, "b64", true), claims),
		"no jti":                      rawProof(t, key, header(), without("jti")),
		"no htm":                      rawProof(t, key, header(), without("htm")),
		"no htu":                      rawProof(t, key, header(), without("htu")),
		"no iat":                      rawProof(t, key, header(), without("iat")),
		"iat a string":                rawProof(t, key, header(), map[string]any{"jti": "j", "htm": "POST", "htu": testResource, "iat": "1700000000"}),
		"ath a number":                rawProof(t, key, header(), map[string]any{"jti": "j", "htm": "POST", "htu": testResource, "iat": 1, "ath": 1}),
		"claims not an object":        rawProof(t, key, header(), nil),
		"signature of other bytes":    good[:strings.LastIndex(good, ".")] + otherSigned[strings.LastIndex(otherSigned, "."):],
		"JSON serialization":          `{"payload":"e30","signatures":[]}`,
		"two parts":                   "a.b",
		"empty":                       "",
	} {
		t.Run(name, func(t *testing.T) {
			_, ok := parseProof(proof, algs)
			assert.False(t, ok)
		})
	}
	_, ok = parseProof(good, signatureAlgorithms([]string{"EdDSA"}))
	assert.False(t, ok, "an algorithm not in the allowlist")
	big, err := rsa.GenerateKey(rand.Reader, MinRSABits)
	require.NoError(t, err)
	_, ok = parseProof(rawProof(t, big, header("alg", "RS256", "jwk", jose.JSONWebKey{Key: &big.PublicKey}), claims), algs)
	assert.True(t, ok, "an RSA key of MinRSABits")
}

// TestDPoPConfirmation: the JWT verifier and introspection read cnf.jkt into the token's
// DPoPThumbprint; a cnf that is not an object, or a jkt that is not a string, makes the
// token invalid; a cnf of another method (x5t#S256) leaves the token unbound.
func TestDPoPConfirmation(t *testing.T) {
	iss, c := newIssuer(t), newClock()
	v := newJWT(t, iss, testResource, c, nil)
	for name, tc := range map[string]struct {
		cnf  any
		want string
		bad  bool
	}{
		"jkt":            {cnf: map[string]any{"jkt": "abc"}, want: "abc"},
		"another method": {cnf: map[string]any{"x5t#S256": "abc"}},
		"not an object":  {cnf: "abc", bad: true},
		"null":           {cnf: nil, bad: true},
		"jkt a number":   {cnf: map[string]any{"jkt": 1}, bad: true},
		"jkt empty":      {cnf: map[string]any{"jkt": ""}, bad: true},
	} {
		t.Run(name, func(t *testing.T) {
			tok := mint(t, iss, oauthtest.Token{Subject: "alice", Audience: testResource, Expiry: c.Now().Add(time.Hour), Extra: map[string]any{"cnf": tc.cnf}})
			info, err := v.Verify(context.Background(), tok)
			if tc.bad {
				require.ErrorIs(t, err, ErrInvalidToken)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, info.DPoPThumbprint)
		})
	}

	exp := itoa(int(c.Now().Add(time.Hour).Unix()))
	iss.Register("bound", `{"active":true,"sub":"carol","aud":"`+testResource+`","exp":`+exp+`,"cnf":{"jkt":"abc"}}`)
	iss.Register("bad-cnf", `{"active":true,"sub":"carol","aud":"`+testResource+`","exp":`+exp+`,"cnf":["abc"]}`)
	iv := newIntrospection(t, iss, c, nil)
	info, err := iv.Verify(context.Background(), "bound")
	require.NoError(t, err)
	assert.Equal(t, "abc", info.DPoPThumbprint)
	_, err = iv.Verify(context.Background(), "bad-cnf")
	require.ErrorIs(t, err, ErrInvalidToken)
}

// TestDPoPIntrospectedToken: an opaque token whose introspection names the proof's key in
// cnf.jkt is admitted with the DPoP scheme (over net/http), and refused as Bearer.
func TestDPoPIntrospectedToken(t *testing.T) {
	iss, c := newIssuer(t), newClock()
	key, err := oauthtest.NewDPoPKey("ES256")
	require.NoError(t, err)
	exp := itoa(int(c.Now().Add(time.Hour).Unix()))
	iss.Register("opaque-bound", `{"active":true,"sub":"carol","client_id":"cli","aud":"`+testResource+`","scope":"mcp:tools","exp":`+exp+`,"cnf":{"jkt":"`+key.Thumbprint()+`"}}`)
	rs, err := New(Config{Resource: testResource, AuthorizationServers: []string{iss.URL}, RequiredScopes: []string{"mcp:tools"},
		Verifier: newIntrospection(t, iss, c, nil), Logger: quiet, DPoP: DPoPConfig{Mode: DPoPAllowed, Algorithms: testDPoPAlgs}})
	require.NoError(t, err)
	rs.now = c.Now
	addr := startStack(t, stackNetHTTP, testCore(t, nil), streamable.ListenerConfig{Config: streamable.Config{RequestGate: rs.Gate}})
	proof, err := key.Sign(oauthtest.Proof{Method: "POST", URL: testResource, AccessToken: "opaque-bound", IssuedAt: c.Now()})
	require.NoError(t, err)
	assert.Equal(t, wantResult("carol via cli [mcp:tools]"), normalize(exchange(t, addr, post(addr, "whoami", dpopHeaders("opaque-bound", proof)...))))
	got := normalize(exchange(t, addr, post(addr, "whoami", "Authorization: Bearer opaque-bound")))
	assert.Contains(t, got, "HTTP/1.1 401 Unauthorized\r\n")
	assert.Contains(t, got, `error_description="The access token is bound to a key: send it with the DPoP scheme and a proof"`)
}

// TestDPoPStats: each DPoP decision is counted once, under its kind.
func TestDPoPStats(t *testing.T) {
	f := newDPoPFixture(t, DPoPConfig{Mode: DPoPAllowed, RequireNonce: true})
	tok := f.token(t, f.key.Thumbprint(), "mcp:tools")
	nonce := f.gateDPoP(t, tok, f.proof(t, f.key, tok, nil)).Response.Header[HeaderDPoPNonce]
	good := f.proof(t, f.key, tok, func(p *oauthtest.Proof) { p.Nonce = nonce })
	require.NotNil(t, f.gateDPoP(t, tok, good).Identity)
	refusedFor(t, f.gateDPoP(t, tok, good), "invalid_dpop_proof", describeProof[proofReplayed])
	refusedFor(t, f.gateDPoP(t, tok, "junk"), "invalid_dpop_proof", describeProof[proofMalformed])
	d, err := f.rs.Gate(context.Background(), gateRequest("POST", "/mcp", "Authorization", "Bearer "+tok))
	require.NoError(t, err)
	assert.Nil(t, d.Identity)
	other := f.proof(t, f.other, tok, func(p *oauthtest.Proof) { p.Nonce = nonce })
	refusedFor(t, f.gateDPoP(t, tok, other), "invalid_token", describeKeyBinding)
	assert.Equal(t, Stats{Admitted: 1, DPoPAdmitted: 1, CacheHits: 3, InvalidProof: 2, NonceRequired: 1, Invalid: 2}, f.rs.Stats())
}

// TestDPoPStepUp: an initialize-era scope refusal names both schemes when both are
// accepted, since the answer after the body cannot tell which one the request used; only
// DPoP when it is required.
func TestDPoPStepUp(t *testing.T) {
	refusal := insufficientScope(fastmcp.Component{Kind: "tool", Name: "write"}, []string{"files:write"})
	allowed := newDPoPFixture(t, DPoPConfig{Mode: DPoPAllowed}).rs.StepUp(refusal)
	require.NotNil(t, allowed)
	assert.Equal(t, `Bearer error="insufficient_scope", error_description="The access token lacks scopes this request needs", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:tools files:write", `+
		`DPoP error="insufficient_scope", error_description="The access token lacks scopes this request needs", algs="ES256 EdDSA", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:tools files:write"`,
		allowed.Header["WWW-Authenticate"])
	required := newDPoPFixture(t, DPoPConfig{Mode: DPoPRequired}).rs.StepUp(refusal)
	assert.Equal(t, `DPoP error="insufficient_scope", error_description="The access token lacks scopes this request needs", algs="ES256 EdDSA", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:tools files:write"`,
		required.Header["WWW-Authenticate"])
}

// TestDPoPAuthorizationFlow: the test issuer's authorization code flow with a DPoP proof
// at its token endpoint issues a DPoP-bound token (token_type DPoP, cnf.jkt the proof's
// key), which the resource server admits over the native listener with a proof of that
// key and refuses with another; without a proof the flow issues a Bearer token.
func TestDPoPAuthorizationFlow(t *testing.T) {
	f := newDPoPFixture(t, DPoPConfig{Mode: DPoPAllowed})
	f.rs.now = time.Now // the issuer mints at the real time
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	exchangeCode := func(proof string) (int, map[string]any) {
		verifier := strings.Repeat("v", 43)
		sum := sha256.Sum256([]byte(verifier))
		q := "response_type=code&client_id=" + oauthtest.PublicClient + "&redirect_uri=http://127.0.0.1:1/cb&state=s&scope=mcp:tools" +
			"&code_challenge_method=S256&code_challenge=" + base64.RawURLEncoding.EncodeToString(sum[:]) + "&resource=" + testResource
		resp, err := client.Get(f.iss.URL + "/authorize?" + q)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusFound, resp.StatusCode)
		loc, err := resp.Location()
		require.NoError(t, err)
		form := "grant_type=authorization_code&code=" + loc.Query().Get("code") + "&redirect_uri=http://127.0.0.1:1/cb&code_verifier=" + verifier + "&resource=" + testResource
		req, err := http.NewRequest(http.MethodPost, f.iss.URL+"/token", strings.NewReader(form))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if proof != "" {
			req.Header.Set("DPoP", proof)
		}
		resp, err = client.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var body map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
		return resp.StatusCode, body
	}
	tokenProof, err := f.key.Sign(oauthtest.Proof{Method: "POST", URL: f.iss.URL + "/token"})
	require.NoError(t, err)
	status, body := exchangeCode(tokenProof)
	require.Equal(t, http.StatusOK, status, body)
	assert.Equal(t, "DPoP", body["token_type"])
	tok := body["access_token"].(string)

	addr := startStack(t, stackNative, testCore(t, nil), streamable.ListenerConfig{Config: streamable.Config{RequestGate: f.rs.Gate}})
	proof, err := f.key.Sign(oauthtest.Proof{Method: "POST", URL: testResource, AccessToken: tok})
	require.NoError(t, err)
	assert.Equal(t, wantResult("alice via mcp-client [mcp:tools]"), normalize(exchange(t, addr, post(addr, "whoami", dpopHeaders(tok, proof)...))))
	stolen, err := f.other.Sign(oauthtest.Proof{Method: "POST", URL: testResource, AccessToken: tok})
	require.NoError(t, err)
	assert.Contains(t, exchange(t, addr, post(addr, "whoami", dpopHeaders(tok, stolen)...)), describeKeyBinding, "the token is useless without its key")

	status, body = exchangeCode("")
	require.Equal(t, http.StatusOK, status, body)
	assert.Equal(t, "Bearer", body["token_type"])
	assert.Equal(t, wantResult("alice via mcp-client [mcp:tools]"), normalize(exchange(t, addr, post(addr, "whoami", "Authorization: Bearer "+body["access_token"].(string)))))

	badProof, err := f.key.Sign(oauthtest.Proof{Method: "POST", URL: f.iss.URL + "/other"})
	require.NoError(t, err)
	status, body = exchangeCode(badProof)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "invalid_dpop_proof", body["error"])
}

// TestDPoPReplayConcurrent: the same proof sent by many requests at once is admitted once.
func TestDPoPReplayConcurrent(t *testing.T) {
	f := newDPoPFixture(t, DPoPConfig{Mode: DPoPRequired})
	tok := f.token(t, f.key.Thumbprint(), "mcp:tools")
	require.NotNil(t, f.gateDPoP(t, tok, f.proof(t, f.key, tok, nil)).Identity) // the token is cached
	proof := f.proof(t, f.key, tok, nil)
	const n = 16
	admitted := make(chan bool, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			<-start
			d, err := f.rs.Gate(context.Background(), gateRequest("POST", "/mcp", "Authorization", "DPoP "+tok, "DPoP", proof))
			admitted <- err == nil && d.Identity != nil
		})
	}
	close(start)
	wg.Wait()
	close(admitted)
	count := 0
	for ok := range admitted {
		if ok {
			count++
		}
	}
	assert.Equal(t, 1, count)
	assert.Equal(t, int64(n-1), f.rs.Stats().InvalidProof)
}
