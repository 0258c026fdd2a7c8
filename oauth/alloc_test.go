//go:build !race

package oauth

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/fastmcp-go/fastmcp/streamable"
)

// dpopAllocBudget bounds the allocations of a DPoP request whose token is cached: go-jose's
// parse of the proof and its embedded key (most of them), the signature check, the claims'
// JSON, the thumbprint, the htu's URL, the replay cache. Measured: 189 with an ES256 proof
// (137 with EdDSA, BenchmarkGateDPoP).
const dpopAllocBudget = 200

// TestAllocsCredential: parsing the Authorization header allocates nothing.
func TestAllocsCredential(t *testing.T) {
	values := [][]byte{[]byte("Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln")}
	allocs := testing.AllocsPerRun(1000, func() {
		if _, _, fault := credential(values, DefaultMaxTokenBytes); fault != credentialOK {
			t.Fatal("refused")
		}
	})
	assert.Zero(t, allocs)
}

// TestGateAllocsBudget: a request refused for want of a token costs no allocation (its
// response is made once), and neither does an admitted request whose token is cached (its
// identity is remembered with it).
func TestGateAllocsBudget(t *testing.T) {
	c := newClock()
	rs, _ := countingServer(t, c, time.Hour, nil)
	ctx := context.Background()
	missing := gateRequest("POST", "/mcp")
	cached := gateRequest("POST", "/mcp", "Authorization", "Bearer cached-token")
	admit(t, rs, "cached-token")
	assert.Zero(t, testing.AllocsPerRun(1000, func() { _, _ = rs.Gate(ctx, missing) }))
	assert.Zero(t, testing.AllocsPerRun(1000, func() { _, _ = rs.Gate(ctx, cached) }))
}

// TestGateAllocsDPoPBudget: with DPoP allowed, a Bearer request whose token is cached still
// costs no allocation; a DPoP request whose token is cached costs its proof's parse and
// signature check (every proof is new, so nothing of it can be cached), within the budget.
func TestGateAllocsDPoPBudget(t *testing.T) {
	const budget = dpopAllocBudget
	f := newDPoPFixture(t, DPoPConfig{Mode: DPoPAllowed})
	ctx := context.Background()
	unbound := f.token(t, "", "mcp:tools")
	bearer := gateRequest("POST", "/mcp", "Authorization", "Bearer "+unbound)
	if d, _ := f.rs.Gate(ctx, bearer); d.Identity == nil {
		t.Fatal("refused")
	}
	assert.Zero(t, testing.AllocsPerRun(1000, func() { _, _ = f.rs.Gate(ctx, bearer) }))

	tok := f.token(t, f.key.Thumbprint(), "mcp:tools")
	const runs = 500
	proofs := make([][]byte, runs+2)
	for i := range proofs {
		proofs[i] = []byte(f.proof(t, f.key, tok, nil))
	}
	h := &listHeaders{names: []string{"Authorization", HeaderDPoP}, values: [][]byte{[]byte("DPoP " + tok), proofs[0]}}
	r := streamable.GateRequest{Method: []byte("POST"), Path: []byte("/mcp"), Header: h}
	if d, _ := f.rs.Gate(ctx, r); d.Identity == nil { // verifies and caches the token
		t.Fatal("refused")
	}
	next := 1
	allocs := testing.AllocsPerRun(runs, func() {
		h.values[1] = proofs[next]
		next++
		if d, _ := f.rs.Gate(ctx, r); d.Identity == nil {
			t.Fatal("refused")
		}
	})
	t.Logf("a DPoP request with a cached token (ES256 proof): %.0f allocations", allocs)
	assert.LessOrEqual(t, allocs, float64(budget))
}
