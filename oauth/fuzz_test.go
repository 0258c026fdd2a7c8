package oauth

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/oauth/oauthtest"
)

// FuzzParseKeySet: any document either fails or yields at most maxKeys public signature
// keys, never private or symmetric material.
func FuzzParseKeySet(f *testing.F) {
	for _, kid := range []string{oauthtest.KeyRSA, oauthtest.KeyEC, oauthtest.KeyEd25519} {
		k, err := oauthtest.PublicJWK(kid)
		require.NoError(f, err)
		b, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{k}})
		require.NoError(f, err)
		f.Add(b)
	}
	f.Add([]byte(`{"keys":[{"kty":"oct","k":"c2VjcmV0"},{"kty":"EC","crv":"P-256","x":"","y":""}]}`))
	f.Add([]byte(`{"keys":null}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		keys, err := parseKeySet(doc, 4)
		if err != nil {
			return
		}
		assert.LessOrEqual(t, len(keys), 4)
		for _, k := range keys {
			assert.True(t, k.IsPublic(), "only public keys")
			assert.True(t, k.Use == "" || k.Use == "sig")
		}
	})
}

// FuzzJWTVerify: whatever the token, Verify refuses it with ErrInvalidToken (no panic, no
// other error, the token not in the message), unless it is a valid token of the issuer,
// which only the seeds are.
func FuzzJWTVerify(f *testing.F) {
	iss, err := oauthtest.NewIssuer()
	require.NoError(f, err)
	defer iss.Close()
	c := newClock()
	v := newJWT(f, iss, testResource, c, nil)
	good := goodToken(f, iss, c, testResource, oauthtest.KeyEC, "a")
	_, err = v.Verify(context.Background(), good) // loads the key set once
	require.NoError(f, err)
	v.keys.cfg.MinRefreshInterval = time.Hour // and never again: no fetches while fuzzing
	v.keys.mu.Lock()
	v.keys.expires = c.Now().Add(time.Hour)
	v.keys.mu.Unlock()
	f.Add(good)
	f.Add(goodToken(f, iss, c, testResource, oauthtest.KeyEd25519, "a b"))
	f.Add("eyJhbGciOiJub25lIn0.e30.")
	f.Add("a.b.c")
	f.Fuzz(func(t *testing.T, token string) {
		info, err := v.Verify(context.Background(), token)
		if err == nil {
			assert.Equal(t, "alice", info.Subject)
			return
		}
		require.ErrorIs(t, err, ErrInvalidToken)
		if len(token) > 16 {
			assert.False(t, strings.Contains(err.Error(), token))
		}
	})
}

// FuzzPeekIssuer: routing on the unverified iss never panics, and what it returns is the
// iss of the payload it decoded.
func FuzzPeekIssuer(f *testing.F) {
	f.Add("e30." + b64(`{"iss":"https://as"}`) + ".sig")
	f.Add("a.b.c")
	f.Add("..")
	f.Fuzz(func(t *testing.T, token string) {
		iss, ok := peekIssuer(token)
		if ok {
			assert.NotEmpty(t, iss)
		} else {
			assert.Empty(t, iss)
		}
	})
}

// FuzzParseProof: whatever the DPoP header, the proof parser never panics, and a proof it
// accepts was signed by one of the seeds' keys (nobody can make one for a key they do not
// hold), with the claims a proof needs and a thumbprint of 43 base64url characters.
func FuzzParseProof(f *testing.F) {
	seeds := map[string]bool{}
	// Keys of fixed bytes: every fuzz worker must know the seeds' keys.
	ec, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), bytes.Repeat([]byte{7}, 32))
	require.NoError(f, err)
	for _, signer := range []crypto.Signer{ec, ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, 32))} {
		key, err := oauthtest.DPoPKeyOf(signer)
		require.NoError(f, err)
		seeds[key.Thumbprint()] = true
		for _, p := range []oauthtest.Proof{
			{Method: "POST", URL: testResource, AccessToken: "tok"},
			{Method: "GET", URL: testResource + "?q", Nonce: "n", Type: "application/dpop+jwt"},
			{Type: "JWT", Method: "POST", URL: testResource},
			{Claims: map[string]any{"jti": 1}},
		} {
			proof, err := key.Sign(p)
			require.NoError(f, err)
			f.Add(proof)
		}
	}
	f.Add("eyJhbGciOiJub25lIn0.e30.")
	f.Add("a.b.c")
	f.Add("")
	algs := signatureAlgorithms(DefaultAlgorithms())
	f.Fuzz(func(t *testing.T, proof string) {
		p, ok := parseProof(proof, algs)
		if !ok {
			assert.Equal(t, dpopProof{}, p)
			return
		}
		assert.True(t, seeds[p.jkt], "a proof of a key of the seeds")
		assert.Len(t, p.jkt, 43)
		assert.NotEmpty(t, p.jti)
		assert.NotEmpty(t, p.htm)
		assert.NotEmpty(t, p.htu)
		again, ok := parseProof(proof, algs)
		assert.True(t, ok)
		assert.Equal(t, p, again)
	})
}
