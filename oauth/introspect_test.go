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

func newIntrospection(t testing.TB, iss *oauthtest.Issuer, c *clock, tweak func(*IntrospectionConfig)) *IntrospectionVerifier {
	t.Helper()
	cfg := IntrospectionConfig{Endpoint: iss.IntrospectionURL(), ClientID: oauthtest.IntrospectionClient, ClientSecret: oauthtest.IntrospectionSecret,
		Issuer: iss.URL, Audiences: []string{testResource}, HTTPClient: testClient()}
	if tweak != nil {
		tweak(&cfg)
	}
	v, err := NewIntrospectionVerifier(cfg)
	require.NoError(t, err)
	v.now = c.Now
	return v
}

func TestIntrospection(t *testing.T) {
	iss, c := newIssuer(t), newClock()
	v := newIntrospection(t, iss, c, nil)
	exp := itoa(int(c.Now().Add(time.Hour).Unix()))
	iss.Register("good", `{"active":true,"sub":"alice","client_id":"cli","iss":"`+iss.URL+`","aud":"`+testResource+`","scope":"a b","exp":`+exp+`}`)
	iss.Register("client-only", `{"active":true,"client_id":"svc","aud":["x","`+testResource+`"],"exp":`+exp+`}`)
	iss.Register("inactive", `{"active":false}`)
	iss.Register("other-aud", `{"active":true,"sub":"alice","aud":"https://other.example","exp":`+exp+`}`)
	iss.Register("no-aud", `{"active":true,"sub":"alice","exp":`+exp+`}`)
	iss.Register("other-iss", `{"active":true,"sub":"alice","iss":"https://evil.example","aud":"`+testResource+`"}`)
	iss.Register("expired", `{"active":true,"sub":"alice","aud":"`+testResource+`","exp":`+itoa(int(c.Now().Add(-time.Hour).Unix()))+`}`)
	iss.Register("early", `{"active":true,"sub":"alice","aud":"`+testResource+`","nbf":`+itoa(int(c.Now().Add(time.Hour).Unix()))+`}`)
	iss.Register("nobody", `{"active":true,"aud":"`+testResource+`"}`)
	ctx := context.Background()

	info, err := v.Verify(ctx, "good")
	require.NoError(t, err)
	assert.Equal(t, &TokenInfo{Subject: "alice", ClientID: "cli", Issuer: iss.URL, Audience: []string{testResource},
		Scopes: []string{"a", "b"}, Expiry: c.Now().Add(time.Hour + DefaultLeeway)}, info)
	info, err = v.Verify(ctx, "client-only")
	require.NoError(t, err)
	assert.Equal(t, "svc", info.Subject, "a client-credentials token is its client")

	for _, tok := range []string{"unknown", "inactive", "other-aud", "no-aud", "other-iss", "expired", "early", "nobody"} {
		_, err := v.Verify(ctx, tok)
		require.ErrorIs(t, err, ErrInvalidToken, tok)
	}

	t.Run("endpoint down: no decision", func(t *testing.T) {
		iss.SetDown(true)
		defer iss.SetDown(false)
		_, err := v.Verify(ctx, "good")
		require.Error(t, err)
		assert.NotErrorIs(t, err, ErrInvalidToken)
		assert.NotContains(t, err.Error(), "good")
	})
	t.Run("wrong credentials: no decision", func(t *testing.T) {
		bad := newIntrospection(t, iss, c, func(cfg *IntrospectionConfig) { cfg.ClientSecret = "nope" })
		_, err := bad.Verify(ctx, "good")
		require.Error(t, err)
		assert.NotErrorIs(t, err, ErrInvalidToken)
	})
}

// TestIntrospectionLimits: MaxBytes (default and set) and Timeout bound the endpoint's
// answer; past them the verifier cannot decide.
func TestIntrospectionLimits(t *testing.T) {
	c := newClock()
	big := strings.Repeat(" ", DefaultMaxIntrospectionBytes)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.PostFormValue("token") {
		case "slow":
			select {
			case <-release:
			case <-r.Context().Done():
			}
		case "big":
			_, _ = w.Write([]byte(`{"active":true,"sub":"a","aud":"` + testResource + `"}` + big))
		default:
			_, _ = w.Write([]byte(`{"active":true,"sub":"a","aud":"` + testResource + `"}` + strings.Repeat(" ", 100)))
		}
	}))
	defer srv.Close()
	defer close(release)
	mk := func(tweak func(*IntrospectionConfig)) *IntrospectionVerifier {
		cfg := IntrospectionConfig{Endpoint: srv.URL, ClientID: "c", ClientSecret: "s", Audiences: []string{testResource}, HTTPClient: testClient()}
		if tweak != nil {
			tweak(&cfg)
		}
		v, err := NewIntrospectionVerifier(cfg)
		require.NoError(t, err)
		v.now = c.Now
		return v
	}
	ctx := context.Background()
	_, err := mk(nil).Verify(ctx, "small")
	require.NoError(t, err)
	_, err = mk(nil).Verify(ctx, "big")
	require.ErrorContains(t, err, "over MaxBytes (65536)")
	_, err = mk(func(cfg *IntrospectionConfig) { cfg.MaxBytes = 64 }).Verify(ctx, "small")
	require.ErrorContains(t, err, "over MaxBytes (64)")
	_, err = mk(func(cfg *IntrospectionConfig) { cfg.Timeout = 50 * time.Millisecond }).Verify(ctx, "slow")
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, DefaultIntrospectionTimeout, mk(nil).cfg.Timeout)
}

func TestNewIntrospectionVerifierConfig(t *testing.T) {
	base := IntrospectionConfig{Endpoint: "https://as.example/introspect", ClientID: "c", ClientSecret: "s", Audiences: []string{testResource}}
	for name, tweak := range map[string]func(*IntrospectionConfig){
		"plain http":     func(c *IntrospectionConfig) { c.Endpoint = "http://as.example/introspect" },
		"no credentials": func(c *IntrospectionConfig) { c.ClientSecret = "" },
		"no audience":    func(c *IntrospectionConfig) { c.Audiences = nil },
		"negative":       func(c *IntrospectionConfig) { c.Timeout = -1 },
	} {
		cfg := base
		tweak(&cfg)
		_, err := NewIntrospectionVerifier(cfg)
		require.ErrorIs(t, err, ErrInvalidConfig, name)
	}
}
