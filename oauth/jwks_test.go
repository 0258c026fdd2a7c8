package oauth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/oauth/oauthtest"
)

// TestJWKSRotation: a token signed with a newly published key is accepted after one fetch
// (its unknown kid triggers it), and tokens of the retired key are refused from then on.
func TestJWKSRotation(t *testing.T) {
	iss, c := newIssuer(t), newClock()
	v := newJWT(t, iss, testResource, c, nil)
	ctx := context.Background()
	old := goodToken(t, iss, c, testResource, oauthtest.KeyRSA, "")
	_, err := v.Verify(ctx, old)
	require.NoError(t, err)
	require.Equal(t, int64(1), iss.Fetches())

	iss.Rotate()
	next := goodToken(t, iss, c, testResource, oauthtest.KeyRSANext, "")
	_, err = v.Verify(ctx, next)
	require.ErrorIs(t, err, ErrInvalidToken, "within MinRefreshInterval of the last fetch an unknown kid fails at once")
	require.Equal(t, int64(1), iss.Fetches())

	c.Advance(DefaultMinRefreshInterval)
	_, err = v.Verify(ctx, next)
	require.NoError(t, err, "the unknown kid fetched the rotated set")
	require.Equal(t, int64(2), iss.Fetches())
	_, err = v.Verify(ctx, old)
	require.ErrorIs(t, err, ErrInvalidToken, "the retired key left the set")
	require.Equal(t, int64(2), iss.Fetches())
}

// TestJWKSUnknownKidRateLimited: garbage kids cost at most one fetch per MinRefreshInterval.
func TestJWKSUnknownKidRateLimited(t *testing.T) {
	iss, c := newIssuer(t), newClock()
	iss.Publish(oauthtest.KeyEC) // KeyRSA unknown
	v := newJWT(t, iss, testResource, c, nil)
	tok := goodToken(t, iss, c, testResource, oauthtest.KeyRSA, "")
	for range 20 {
		_, err := v.Verify(context.Background(), tok)
		require.ErrorIs(t, err, ErrInvalidToken)
	}
	assert.Equal(t, int64(1), iss.Fetches(), "one fetch for the first token, none for the others")
	c.Advance(DefaultMinRefreshInterval)
	_, err := v.Verify(context.Background(), tok)
	require.ErrorIs(t, err, ErrInvalidToken)
	assert.Equal(t, int64(2), iss.Fetches())
}

// TestJWKSOutage: with the key set unreachable, cached keys keep working until the TTL, an
// unknown kid cannot be checked, and past the TTL no token can be until the set is back
// (never invalid_token: the token may be good).
func TestJWKSOutage(t *testing.T) {
	iss, c := newIssuer(t), newClock()
	v := newJWT(t, iss, testResource, c, nil)
	ctx := context.Background()
	tok := func() string { return goodToken(t, iss, c, testResource, oauthtest.KeyEC, "") }
	_, err := v.Verify(ctx, tok())
	require.NoError(t, err)

	iss.SetDown(true)
	c.Advance(DefaultJWKSTTL - time.Second)
	_, err = v.Verify(ctx, tok())
	require.NoError(t, err, "cached keys work until the TTL")
	_, err = v.Verify(ctx, goodToken(t, iss, c, testResource, oauthtest.KeyRSANext, ""))
	requireUnavailable(t, err, "an unknown kid, its refresh failed: it may be a key the server could not fetch")
	_, err = v.Verify(ctx, goodToken(t, iss, c, testResource, oauthtest.KeyRSANext, ""))
	requireUnavailable(t, err, "the same within MinRefreshInterval of the failed fetch")

	c.Advance(time.Second)
	_, err = v.Verify(ctx, tok())
	requireUnavailable(t, err, "past the TTL, with no fresh set, nothing can be checked")
	fetches := iss.Fetches()
	_, err = v.Verify(ctx, tok())
	requireUnavailable(t, err)
	assert.Equal(t, fetches, iss.Fetches(), "a failed fetch is not retried within MinRefreshInterval")

	iss.SetDown(false)
	c.Advance(DefaultMinRefreshInterval)
	_, err = v.Verify(ctx, tok())
	require.NoError(t, err, "the set is back")
}

// TestJWKSMaxAge: Cache-Control max-age shortens the TTL, never below MinRefreshInterval.
func TestJWKSMaxAge(t *testing.T) {
	ks := &keySet{cfg: JWKSConfig{TTL: time.Hour, MinRefreshInterval: time.Minute}}
	assert.Equal(t, time.Hour, ks.ttl(""))
	assert.Equal(t, 10*time.Minute, ks.ttl("public, max-age=600"))
	assert.Equal(t, time.Minute, ks.ttl("max-age=5"))
	assert.Equal(t, time.Hour, ks.ttl("max-age=86400"), "never longer than TTL")
	assert.Equal(t, time.Hour, ks.ttl("max-age=garbage"))

	iss, c := newIssuer(t), newClock()
	iss.SetJWKSHeader("Cache-Control", "max-age=120")
	v := newJWT(t, iss, testResource, c, nil)
	tok := goodToken(t, iss, c, testResource, oauthtest.KeyEC, "")
	_, err := v.Verify(context.Background(), tok)
	require.NoError(t, err)
	c.Advance(2 * time.Minute)
	_, err = v.Verify(context.Background(), tok)
	require.NoError(t, err)
	assert.Equal(t, int64(2), iss.Fetches(), "refetched after max-age")
}

// TestJWKSLimits: a set over MaxKeys or MaxBytes is refused as a whole; unusable keys are
// ignored; a redirect is not followed.
func TestJWKSLimits(t *testing.T) {
	ctx := context.Background()
	t.Run("MaxKeys", func(t *testing.T) {
		iss, c := newIssuer(t), newClock()
		iss.Publish(oauthtest.KeyRSA, oauthtest.KeyEC, oauthtest.KeyEd25519)
		tok := goodToken(t, iss, c, testResource, oauthtest.KeyEC, "")
		tight := newJWT(t, iss, testResource, c, func(cfg *JWTConfig) { cfg.JWKS.MaxKeys = 2 })
		_, err := tight.Verify(ctx, tok)
		requireUnavailable(t, err, "three keys, at most two: a failed fetch")
		fits := newJWT(t, iss, testResource, c, func(cfg *JWTConfig) { cfg.JWKS.MaxKeys = 3 })
		_, err = fits.Verify(ctx, tok)
		require.NoError(t, err)
		_, err = parseKeySet([]byte(`{"keys":[`+strings.Repeat(`{},`, DefaultMaxKeys)+`{}]}`), DefaultMaxKeys)
		require.ErrorIs(t, err, errTooManyKeys, "the default applies")
	})
	t.Run("MaxBytes", func(t *testing.T) {
		iss, c := newIssuer(t), newClock()
		tok := goodToken(t, iss, c, testResource, oauthtest.KeyEC, "")
		tight := newJWT(t, iss, testResource, c, func(cfg *JWTConfig) { cfg.JWKS.MaxBytes = 512 })
		_, err := tight.Verify(ctx, tok)
		requireUnavailable(t, err, "the set is over 512 bytes: a failed fetch")
		dflt := newJWT(t, iss, testResource, c, nil)
		require.Equal(t, int64(DefaultMaxJWKSBytes), dflt.keys.cfg.MaxBytes)
		iss.AddRawKeys(`{"kty":"oct","k":"` + strings.Repeat("A", DefaultMaxJWKSBytes) + `"}`)
		_, err = dflt.Verify(ctx, tok)
		requireUnavailable(t, err, "a set over the default is refused")
	})
	t.Run("unusable keys are ignored", func(t *testing.T) {
		keys, err := parseKeySet([]byte(`{"keys":[
			{"kty":"oct","kid":"hmac","k":"c2VjcmV0"},
			{"kty":"RSA","kid":"weak","n":"AQAB","e":"AQAB"},
			{"kty":"EC","kid":"private","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0","d":"jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI"},
			{"kty":"EC","kid":"enc","use":"enc","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},
			{"kty":"XYZ","kid":"unknown"},
			{"kty":"EC","kid":"good","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}
		]}`), DefaultMaxKeys)
		require.NoError(t, err)
		require.Len(t, keys, 1)
		assert.Equal(t, "good", keys[0].KeyID)
	})
	t.Run("redirect", func(t *testing.T) {
		iss, c := newIssuer(t), newClock()
		redirect := httptest.NewServer(http.RedirectHandler(iss.JWKSURL(), http.StatusFound))
		defer redirect.Close()
		tok := goodToken(t, iss, c, testResource, oauthtest.KeyEC, "")
		v := newJWT(t, iss, testResource, c, func(cfg *JWTConfig) { cfg.JWKS.URL = redirect.URL })
		_, err := v.Verify(ctx, tok)
		requireUnavailable(t, err)
		assert.Zero(t, iss.Fetches(), "the redirect was not followed")
	})
}

// TestJWKSConcurrentFirstFetch: tokens arriving together before the set is loaded share one
// fetch.
func TestJWKSConcurrentFirstFetch(t *testing.T) {
	iss, c := newIssuer(t), newClock()
	v := newJWT(t, iss, testResource, c, nil)
	tok := goodToken(t, iss, c, testResource, oauthtest.KeyEd25519, "")
	errs := make(chan error, 16)
	for range cap(errs) {
		go func() {
			_, err := v.Verify(context.Background(), tok)
			errs <- err
		}()
	}
	for range cap(errs) {
		require.NoError(t, <-errs)
	}
	assert.Equal(t, int64(1), iss.Fetches())
}

// TestJWKSFetchTimeout: a key set that does not answer within FetchTimeout is a failed
// fetch (the token could not be checked), not a wait as long as the issuer likes.
func TestJWKSFetchTimeout(t *testing.T) {
	iss, c := newIssuer(t), newClock()
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hang.Close()
	defer close(release)
	v := newJWT(t, iss, testResource, c, func(cfg *JWTConfig) {
		cfg.JWKS.URL = hang.URL
		cfg.JWKS.FetchTimeout = 50 * time.Millisecond
	})
	tok := goodToken(t, iss, c, testResource, oauthtest.KeyEC, "")
	done := make(chan error, 1)
	go func() {
		_, err := v.Verify(context.Background(), tok)
		done <- err
	}()
	select {
	case err := <-done:
		requireUnavailable(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the fetch was not bounded by FetchTimeout")
	}
	dflt := newJWT(t, iss, testResource, c, nil)
	assert.Equal(t, DefaultFetchTimeout, dflt.keys.cfg.FetchTimeout)
}

// requireUnavailable asserts that err says the token could not be checked, not that it is
// bad.
func requireUnavailable(t *testing.T, err error, msg ...any) {
	t.Helper()
	require.ErrorIs(t, err, errUnavailable, msg...)
	require.NotErrorIs(t, err, ErrInvalidToken, msg...)
}
