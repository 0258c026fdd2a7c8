//go:build !race

package streamable

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/valyala/fasthttp"
)

// The health paths cost the MCP path nothing when ServeHealth is off, and one comparison
// when on: the budget of a tools/call is the same.
func TestAllocsHealthCheckBudget(t *testing.T) {
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod("POST")
	ctx.Request.SetRequestURI("/mcp")
	s := &Server{cfg: ListenerConfig{ServeHealth: true}, ep: &endpoint{}}
	allocs := testing.AllocsPerRun(100, func() {
		if s.serveHealth(&ctx) || s.skipsGate(&ctx) {
			t.Fatal("the MCP path is not a health path")
		}
	})
	assert.Zero(t, allocs)
}
