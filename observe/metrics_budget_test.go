//go:build !race

package observe

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fastmcp/transport"
)

// TestAllocsMetricsBudget pins the cost of recording a request whose series exists: no
// allocation.
func TestAllocsMetricsBudget(t *testing.T) {
	m, err := NewMetrics(MetricsConfig{Registerer: prometheus.NewRegistry()})
	require.NoError(t, err)
	info := fastmcp.RequestInfo{Labels: &fastmcp.Labels{Method: "tools/call", Tool: "echo", ProtocolVersion: "2026-07-28", Network: "tcp"}}
	out := fastmcp.RequestOutcome{Duration: time.Millisecond}
	ctx := context.Background()
	allocs := testing.AllocsPerRun(1000, func() {
		m.RequestEnd(m.RequestStart(ctx, info), info, out)
	})
	assert.Zero(t, allocs)
}

// TestAllocsObservedDispatchBudget pins a tools/call through the core with Metrics on to the
// core's own budget (2, see fastmcp's TestAllocsDispatch): the observer adds none.
func TestAllocsObservedDispatchBudget(t *testing.T) {
	m, err := NewMetrics(MetricsConfig{Registerer: prometheus.NewRegistry()})
	require.NoError(t, err)
	ep := transport.For(newCore(t, m))
	modern := fastmcp.ConnState{Dialect: fastmcp.Modern}
	var msg decode.Message
	body := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{` + meta + `},"name":"echo","arguments":{"text":"hello"}}}`)
	dst := make([]byte, 0, 1024)
	serve := func() {
		require.NoError(t, ep.Decoder().Decode(&msg, body))
		r := ep.Serve(context.Background(), &modern, &msg, nil, dst[:0])
		dst = r.Body
	}
	serve()
	assert.LessOrEqual(t, testing.AllocsPerRun(200, serve), 2.0)
}
