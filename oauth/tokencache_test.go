package oauth

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingServer is a resource server whose verifier admits any token as alice, expiring
// at expiry, and counts its calls.
func countingServer(t testing.TB, c *clock, expiry time.Duration, tweak func(*Config)) (*ResourceServer, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	v := verifierFunc(func(context.Context, string) (*TokenInfo, error) {
		calls.Add(1)
		return &TokenInfo{Subject: "alice", Expiry: c.Now().Add(expiry)}, nil
	})
	cfg := Config{Resource: testResource, AuthorizationServers: []string{"https://as.example"}, Verifier: v, Logger: quiet}
	if tweak != nil {
		tweak(&cfg)
	}
	rs, err := New(cfg)
	require.NoError(t, err)
	rs.now = c.Now
	return rs, &calls
}

func admit(t testing.TB, rs *ResourceServer, token string) {
	t.Helper()
	d, err := rs.Gate(context.Background(), gateRequest("POST", "/mcp", "Authorization", "Bearer "+token))
	require.NoError(t, err)
	require.NotNil(t, d.Identity, "admitted")
}

// TestTokenCache: a token is verified once per TokenCacheTTL, never remembered past its
// expiry, and the cache holds at most MaxCachedTokens.
func TestTokenCache(t *testing.T) {
	t.Run("TTL", func(t *testing.T) {
		c := newClock()
		rs, calls := countingServer(t, c, time.Hour, nil)
		admit(t, rs, "t1")
		admit(t, rs, "t1")
		assert.Equal(t, int64(1), calls.Load())
		c.Advance(DefaultTokenCacheTTL - time.Second)
		admit(t, rs, "t1")
		assert.Equal(t, int64(1), calls.Load())
		c.Advance(time.Second)
		admit(t, rs, "t1")
		assert.Equal(t, int64(2), calls.Load(), "verified again after the TTL")
	})
	t.Run("configured TTL", func(t *testing.T) {
		c := newClock()
		rs, calls := countingServer(t, c, time.Hour, func(cfg *Config) { cfg.TokenCacheTTL = 5 * time.Second })
		admit(t, rs, "t1")
		c.Advance(5 * time.Second)
		admit(t, rs, "t1")
		assert.Equal(t, int64(2), calls.Load())
	})
	t.Run("never past the token's expiry", func(t *testing.T) {
		c := newClock()
		rs, calls := countingServer(t, c, 10*time.Second, nil)
		admit(t, rs, "t1")
		c.Advance(10 * time.Second)
		admit(t, rs, "t1")
		assert.Equal(t, int64(2), calls.Load())
	})
	t.Run("MaxCachedTokens", func(t *testing.T) {
		c := newClock()
		rs, calls := countingServer(t, c, time.Hour, func(cfg *Config) { cfg.MaxCachedTokens = 32 })
		for i := range 100 {
			admit(t, rs, "t"+itoa(i))
		}
		assert.LessOrEqual(t, rs.cache.len(), 32)
		assert.Equal(t, int64(100), calls.Load())
		dflt, _ := countingServer(t, c, time.Hour, nil)
		assert.Equal(t, DefaultMaxCachedTokens/tokenCacheShards, dflt.cache.max)
	})
	t.Run("NoTokenCache", func(t *testing.T) {
		c := newClock()
		rs, calls := countingServer(t, c, time.Hour, func(cfg *Config) { cfg.MaxCachedTokens = NoTokenCache })
		admit(t, rs, "t1")
		admit(t, rs, "t1")
		assert.Equal(t, int64(2), calls.Load())
	})
	t.Run("refusals are not remembered", func(t *testing.T) {
		c := newClock()
		var calls atomic.Int64
		v := verifierFunc(func(context.Context, string) (*TokenInfo, error) {
			calls.Add(1)
			return nil, invalid("test")
		})
		rs, err := New(Config{Resource: testResource, AuthorizationServers: []string{"https://as.example"}, Verifier: v, Logger: quiet})
		require.NoError(t, err)
		rs.now = c.Now
		for range 3 {
			_, err := rs.Gate(context.Background(), gateRequest("POST", "/mcp", "Authorization", "Bearer bad"))
			require.NoError(t, err)
		}
		assert.Equal(t, int64(3), calls.Load())
	})
}
