package oauth

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/oauth/oauthtest"
)

// TestIntrospectionFlood: junk opaque tokens are not amplified onto the authorization
// server: the same junk repeated costs one introspection call, distinct junk one call each
// (there is nothing to remember of a token never seen), and an outage is never remembered
// against a token.
func TestIntrospectionFlood(t *testing.T) {
	iss, c := newIssuer(t), newClock()
	rs, err := New(Config{Resource: testResource, AuthorizationServers: []string{iss.URL}, Verifier: newIntrospection(t, iss, c, nil), Logger: quiet})
	require.NoError(t, err)
	rs.now = c.Now
	status := func(tok string) int {
		t.Helper()
		d, err := rs.Gate(context.Background(), gateRequest("POST", "/mcp", "Authorization", "Bearer "+tok))
		require.NoError(t, err)
		if d.Response == nil {
			return http.StatusOK
		}
		return d.Response.Status
	}
	for range 100 {
		require.Equal(t, http.StatusUnauthorized, status("junk"))
	}
	assert.Equal(t, int64(1), iss.Introspections(), "the same junk 100 times: one call")
	for i := range 100 {
		require.Equal(t, http.StatusUnauthorized, status("junk-"+itoa(i)))
	}
	assert.Equal(t, int64(101), iss.Introspections(), "100 distinct junk tokens: one call each")

	iss.SetFault(oauthtest.FaultDown)
	for range 3 {
		require.Equal(t, http.StatusServiceUnavailable, status("later-good"))
	}
	assert.Equal(t, int64(104), iss.Introspections(), "an outage answer is not remembered")
	iss.SetFault(oauthtest.NoFault)
	iss.Register("later-good", `{"active":true,"sub":"alice","aud":"`+testResource+`","exp":`+itoa(int(c.Now().Add(time.Hour).Unix()))+`}`)
	assert.Equal(t, http.StatusOK, status("later-good"))
}

// TestIntrospectionCoalesced: requests arriving together with the same token share one
// introspection call.
func TestIntrospectionCoalesced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		calls := 0
		release := make(chan struct{})
		answer := func(r *http.Request) (*http.Response, error) {
			mu.Lock()
			calls++
			mu.Unlock()
			select {
			case <-release:
			case <-r.Context().Done():
				return nil, r.Context().Err()
			}
			return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
				Body: io.NopCloser(strings.NewReader(`{"active":false}`)), Request: r}, nil
		}
		v, err := NewIntrospectionVerifier(IntrospectionConfig{Endpoint: "https://as.example/introspect", ClientID: "c", ClientSecret: "s",
			Audiences: []string{testResource}, HTTPClient: &http.Client{Transport: roundTripFunc(answer)}})
		require.NoError(t, err)
		const n = 16
		errs := make(chan error, n)
		for range n {
			go func() {
				_, err := v.Verify(context.Background(), "junk")
				errs <- err
			}()
		}
		synctest.Wait() // every request is in the call or waiting for it
		mu.Lock()
		assert.Equal(t, 1, calls, "one call for the requests of the same token")
		mu.Unlock()
		close(release)
		for range n {
			err := <-errs
			require.ErrorIs(t, err, ErrInvalidToken)
			assert.NotContains(t, err.Error(), "junk", "the token is in no error")
		}
		_, err = v.Verify(context.Background(), "junk")
		require.ErrorIs(t, err, ErrInvalidToken)
		assert.Equal(t, 1, calls, "and the answer is remembered")
	})
}

// TestRefusalCacheLimits: a refusal is remembered for RefusalCacheTTL (default and set), at
// most MaxCachedRefusals of them (default and set), not at all with NoRefusalCache, and a
// token refused as not yet valid is asked about again.
func TestRefusalCacheLimits(t *testing.T) {
	ctx := context.Background()
	refuse := func(t *testing.T, v *IntrospectionVerifier, tok string) {
		t.Helper()
		_, err := v.Verify(ctx, tok)
		require.ErrorIs(t, err, ErrInvalidToken)
	}
	t.Run("TTL", func(t *testing.T) {
		iss, c := newIssuer(t), newClock()
		v := newIntrospection(t, iss, c, nil)
		refuse(t, v, "junk")
		c.Advance(DefaultRefusalCacheTTL - time.Second)
		refuse(t, v, "junk")
		assert.Equal(t, int64(1), iss.Introspections())
		c.Advance(time.Second)
		refuse(t, v, "junk")
		assert.Equal(t, int64(2), iss.Introspections(), "asked again after the TTL")
	})
	t.Run("configured TTL", func(t *testing.T) {
		iss, c := newIssuer(t), newClock()
		v := newIntrospection(t, iss, c, func(cfg *IntrospectionConfig) { cfg.RefusalCacheTTL = 5 * time.Second })
		refuse(t, v, "junk")
		c.Advance(5 * time.Second)
		refuse(t, v, "junk")
		assert.Equal(t, int64(2), iss.Introspections())
	})
	t.Run("MaxCachedRefusals", func(t *testing.T) {
		iss, c := newIssuer(t), newClock()
		v := newIntrospection(t, iss, c, func(cfg *IntrospectionConfig) { cfg.MaxCachedRefusals = 32 })
		for i := range 100 {
			refuse(t, v, "junk-"+itoa(i))
		}
		assert.Equal(t, 32, v.refused.len(), "a flood of distinct junk cannot grow the cache")
		assert.Equal(t, DefaultMaxCachedRefusals, newIntrospection(t, iss, c, nil).refused.max)
	})
	t.Run("NoRefusalCache", func(t *testing.T) {
		iss, c := newIssuer(t), newClock()
		v := newIntrospection(t, iss, c, func(cfg *IntrospectionConfig) { cfg.MaxCachedRefusals = NoRefusalCache })
		refuse(t, v, "junk")
		refuse(t, v, "junk")
		assert.Equal(t, int64(2), iss.Introspections())
	})
	t.Run("not yet valid is not remembered", func(t *testing.T) {
		iss, c := newIssuer(t), newClock()
		v := newIntrospection(t, iss, c, nil)
		nbf := c.Now().Add(DefaultLeeway + 10*time.Second)
		iss.Register("early", `{"active":true,"sub":"alice","aud":"`+testResource+`","nbf":`+itoa(int(nbf.Unix()))+`}`)
		refuse(t, v, "early")
		c.Advance(10 * time.Second) // valid now, well within RefusalCacheTTL
		_, err := v.Verify(ctx, "early")
		require.NoError(t, err)
		assert.Equal(t, int64(2), iss.Introspections())
	})
	t.Run("invalid config", func(t *testing.T) {
		for name, tweak := range map[string]func(*IntrospectionConfig){
			"negative MaxCachedRefusals": func(c *IntrospectionConfig) { c.MaxCachedRefusals = -2 },
			"negative RefusalCacheTTL":   func(c *IntrospectionConfig) { c.RefusalCacheTTL = -time.Second },
		} {
			cfg := IntrospectionConfig{Endpoint: "https://as.example/introspect", ClientID: "c", ClientSecret: "s", Audiences: []string{testResource}}
			tweak(&cfg)
			_, err := NewIntrospectionVerifier(cfg)
			require.ErrorIs(t, err, ErrInvalidConfig, name)
		}
	})
}
