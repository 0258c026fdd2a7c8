package oauth

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGateStats: each decision is counted once, under its kind; PublicPaths pass without a
// token or an identity.
func TestGateStats(t *testing.T) {
	c := newClock()
	v := verifierFunc(func(_ context.Context, tok string) (*TokenInfo, error) {
		switch tok {
		case "good":
			return &TokenInfo{Subject: "alice", Scopes: []string{"s"}, Expiry: c.Now().Add(time.Hour)}, nil
		case "weak":
			return &TokenInfo{Subject: "bob", Expiry: c.Now().Add(time.Hour)}, nil
		case "down":
			return nil, errors.New("authorization server unreachable")
		case "broken":
			return &TokenInfo{}, nil // no subject
		}
		return nil, invalid("unknown")
	})
	rs, err := New(Config{Resource: testResource, AuthorizationServers: []string{"https://as.example"}, RequiredScopes: []string{"s"},
		PublicPaths: []string{"/healthz"}, Verifier: v, Logger: quiet})
	require.NoError(t, err)
	rs.now = c.Now
	ctx := context.Background()
	gate := func(path string, kv ...string) {
		_, _ = rs.Gate(ctx, gateRequest("POST", path, kv...))
	}
	d, err := rs.Gate(ctx, gateRequest("GET", "/healthz"))
	require.NoError(t, err)
	assert.Nil(t, d.Response)
	assert.Nil(t, d.Identity)
	gate("/.well-known/oauth-protected-resource/mcp")
	gate("/mcp")
	gate("/healthz/more") // not public: a path is matched whole
	gate("/mcp", "Authorization", "Bearer")
	gate("/mcp", "Authorization", "Bearer a", "Authorization", "Bearer b")
	gate("/mcp", "Authorization", "Bearer nope")
	gate("/mcp", "Authorization", "Bearer weak")
	gate("/mcp", "Authorization", "Bearer down")
	gate("/mcp", "Authorization", "Bearer broken")
	gate("/mcp", "Authorization", "Bearer good")
	gate("/mcp", "Authorization", "Bearer good")
	assert.Equal(t, Stats{Admitted: 2, CacheHits: 1, Metadata: 1, Public: 1, Missing: 2, Malformed: 2, Invalid: 1, InsufficientScope: 1, Unavailable: 1, Failed: 1}, rs.Stats())

	_, err = New(Config{Resource: testResource, AuthorizationServers: []string{"https://as.example"}, PublicPaths: []string{"/mcp"}, Verifier: v})
	require.ErrorIs(t, err, ErrInvalidConfig, "the endpoint itself is never public")
}
