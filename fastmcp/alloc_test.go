//go:build !race

package fastmcp

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fastmcp-go/fastmcp/decode"
)

// TestAllocsDispatch pins the allocation budgets of the hot paths: a typed tools/call 2 (the
// Request, and one buffer for the string arguments handlers may keep; the project's ceiling
// is 6), and server/discover and tools/list of a public catalog none, served from
// precomputed bytes.
func TestAllocsDispatch(t *testing.T) {
	s := newBenchServer(t)
	budgets := map[string]float64{"tools-call": 2, "tools-list": 0, "discover": 0}
	for _, bm := range benchMessages {
		var m decode.Message
		msg := []byte(bm.msg)
		dst := make([]byte, 0, 1024)
		dst = dispatchOnce(t, s, &m, msg, dst) // warm the caches
		allocs := testing.AllocsPerRun(100, func() {
			dst = dispatchOnce(t, s, &m, msg, dst)
		})
		assert.LessOrEqual(t, allocs, budgets[bm.method], bm.method)
	}
}

// TestAllocsLegacyBudget pins the initialize-era path to the 2026-07-28 budgets: tools/call
// allocates no more than the modern call (2), and the first page of tools/list is served
// from bytes precomputed for the dialect (none).
func TestAllocsLegacyBudget(t *testing.T) {
	s := newBenchServer(t)
	c := &ConnState{Dialect: Legacy20251125, LogLevel: s.legacyLogLevel()}
	budgets := map[string]float64{"tools-call": 2, "tools-list": 0}
	for _, bm := range legacyBenchMessages {
		var m decode.Message
		msg := []byte(bm.msg)
		dst := make([]byte, 0, 1024)
		dst = handleLegacyOnce(t, s, c, &m, msg, dst) // warm the caches
		allocs := testing.AllocsPerRun(100, func() {
			dst = handleLegacyOnce(t, s, c, &m, msg, dst)
		})
		assert.LessOrEqual(t, allocs, budgets[bm.method], bm.method)
	}
}

// TestAllocsResultWriter checks that writing a result into a buffer with room allocates
// nothing.
func TestAllocsResultWriter(t *testing.T) {
	s := newTestServer(t, nil)
	dst := make([]byte, 0, 512)
	id, extra := []byte("7"), []byte(`{"k":1}`)
	allocs := testing.AllocsPerRun(100, func() {
		b := beginResult(dst[:0], id, resultComplete)
		b = append(b, `,"content":[]`...)
		_ = s.endResult(b, extra)
	})
	assert.Zero(t, allocs)
}
