//go:build !race

package oauth

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

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
