package oauth

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/streamable"
)

// gateRun is a stack with the resource server's gate, GateQuick in front of it or not.
type gateRun struct {
	name, stack string
	quick       bool
}

// gateRuns are the stacks with GateQuick (first, so that it meets a cold cache on the first
// stack and a warm one after), then without.
func gateRuns() []gateRun {
	var runs []gateRun
	for _, quick := range []bool{true, false} {
		for _, s := range allStacks {
			r := gateRun{name: s, stack: s, quick: quick}
			if quick {
				r.name += "+quick"
			}
			runs = append(runs, r)
		}
	}
	return runs
}

// config is the endpoint's configuration of the run, gated by rs.
func (r gateRun) config(rs *ResourceServer) streamable.ListenerConfig {
	cfg := streamable.Config{RequestGate: rs.Gate}
	if r.quick {
		cfg.RequestGateQuick = rs.GateQuick
	}
	return streamable.ListenerConfig{Config: cfg}
}

// TestGateQuick: GateQuick answers what Gate answers without the verifier (the metadata, a
// missing token, a cached token, with the same identity), and leaves a token it would have
// to verify undecided without calling the verifier or counting anything, as it does every
// token without a cache.
func TestGateQuick(t *testing.T) {
	c := newClock()
	rs, calls := countingServer(t, c, time.Hour, func(cfg *Config) { cfg.PublicPaths = []string{"/healthz"} })
	ctx := context.Background()
	for _, r := range []streamable.GateRequest{
		gateRequest("GET", WellKnownPath+"/mcp"),
		gateRequest("GET", "/healthz"),
		gateRequest("POST", "/mcp"),
		gateRequest("POST", "/mcp", "Authorization", "Bearer a", "Authorization", "Bearer b"),
	} {
		quick, ok := rs.GateQuick(r)
		require.True(t, ok, "%s %s decided at once", r.Method, r.Path)
		full, err := rs.Gate(ctx, r)
		require.NoError(t, err)
		assert.Equal(t, full, quick)
	}
	before := rs.Stats()

	cached := gateRequest("POST", "/mcp", "Authorization", "Bearer t1")
	_, ok := rs.GateQuick(cached)
	assert.False(t, ok, "a token to verify is left to Gate")
	assert.Zero(t, calls.Load(), "GateQuick never calls the verifier")
	assert.Equal(t, before, rs.Stats(), "nor counts what it leaves undecided")
	full, err := rs.Gate(ctx, cached)
	require.NoError(t, err)
	require.NotNil(t, full.Identity)
	quick, ok := rs.GateQuick(cached)
	require.True(t, ok, "a cached token is decided at once")
	assert.Same(t, full.Identity, quick.Identity)
	assert.Equal(t, int64(1), calls.Load())
	assert.Equal(t, int64(2), rs.Stats().Admitted)
	assert.Equal(t, int64(1), rs.Stats().CacheHits)

	c.Advance(2 * time.Hour) // past the token's expiry: the cache no longer holds it
	_, ok = rs.GateQuick(cached)
	assert.False(t, ok)

	uncached, _ := countingServer(t, c, time.Hour, func(cfg *Config) { cfg.MaxCachedTokens = NoTokenCache })
	_, ok = uncached.GateQuick(cached)
	assert.False(t, ok, "without a cache, every token goes to Gate")
	_, ok = uncached.GateQuick(gateRequest("POST", "/mcp"))
	assert.True(t, ok, "but a missing one is refused at once")
}

// TestGateQuickDPoP: with a cached token, GateQuick checks the DPoP proof as Gate does (a
// fresh one admitted, a bad or replayed one refused, the bound token refused as Bearer);
// with a token to verify it decides nothing, not even on the proof, which Gate checks.
func TestGateQuickDPoP(t *testing.T) {
	f := newDPoPFixture(t, DPoPConfig{Mode: DPoPAllowed})
	tok := f.token(t, f.key.Thumbprint(), "mcp:tools")
	dpop := func(proof string) streamable.GateRequest {
		return gateRequest("POST", "/mcp", "Authorization", "DPoP "+tok, "DPoP", proof)
	}
	_, ok := f.rs.GateQuick(dpop("junk"))
	assert.False(t, ok, "an uncached token's proof is left to Gate")
	refusedFor(t, f.gateDPoP(t, tok, "junk"), "invalid_dpop_proof", describeProof[proofMalformed])
	require.NotNil(t, f.gateDPoP(t, tok, f.proof(t, f.key, tok, nil)).Identity, "verified and cached")

	decide := func(r streamable.GateRequest) streamable.GateDecision {
		t.Helper()
		d, ok := f.rs.GateQuick(r)
		require.True(t, ok, "a cached token is decided at once")
		return d
	}
	fresh := f.proof(t, f.key, tok, nil)
	assert.NotNil(t, decide(dpop(fresh)).Identity)
	refusedFor(t, decide(dpop(fresh)), "invalid_dpop_proof", describeProof[proofReplayed])
	refusedFor(t, decide(dpop("junk")), "invalid_dpop_proof", describeProof[proofMalformed])
	refusedFor(t, decide(dpop(f.proof(t, f.other, tok, nil))), "invalid_token", describeKeyBinding)
	refusedFor(t, decide(gateRequest("POST", "/mcp", "Authorization", "Bearer "+tok)), "invalid_token", describeBoundBearer)
}
