package observe

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/internal/wireschema"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// TestMetricsScrape serves literal requests over Streamable HTTP and scrapes the real
// /metrics: one histogram series per label set (the tool name from the catalog, _other for a
// name the catalog lacks, tool_error for an isError result), and the refusal by limit of a
// body over MaxBodyBytes.
func TestMetricsScrape(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(MetricsConfig{Registerer: reg})
	require.NoError(t, err)
	core := newCore(t, m)
	s := startHTTP(t, core, streamable.ListenerConfig{Config: streamable.Config{MaxBodyBytes: 1024}})
	c, err := NewCollector(Sources{Server: core, Transport: s, Executor: s.Executor()})
	require.NoError(t, err)
	reg.MustRegister(c)
	l := startListener(t, reg, nil)

	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + meta + `},"name":"echo","arguments":{"text":"hi"}}}`
	resp, body := exchange(t, hostOf(s.URL()), post(s, call, "Mcp-Method: tools/call", "Mcp-Name: echo"))
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	wireschema.RequireValid(t, "CallToolResultResponse", []byte(body))

	unknown := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{` + meta + `},"name":"user-chosen-name-77","arguments":{}}}`
	_, body = exchange(t, hostOf(s.URL()), post(s, unknown, "Mcp-Method: tools/call", "Mcp-Name: user-chosen-name-77"))
	wireschema.RequireValid(t, "JSONRPCErrorResponse", []byte(body))

	fail := `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{` + meta + `},"name":"fail","arguments":{}}}`
	_, body = exchange(t, hostOf(s.URL()), post(s, fail, "Mcp-Method: tools/call", "Mcp-Name: fail"))
	wireschema.RequireValid(t, "CallToolResultResponse", []byte(body))

	big := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{` + meta + `},"name":"echo","arguments":{"text":"` + strings.Repeat("x", 2000) + `"}}}`
	resp, body = exchange(t, hostOf(s.URL()), post(s, big, "Mcp-Method: tools/call", "Mcp-Name: echo"))
	require.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	// Refused before the body is read, so with a null id, which the schema cannot express.
	assert.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Request body exceeds the maximum size"}}`, body)

	assert.Equal(t, []string{
		`mcp_server_operation_duration_seconds_count{error_type="",gen_ai_tool_name="echo",mcp_method_name="tools/call",mcp_protocol_version="2026-07-28",network_transport="tcp"} 1`,
		`mcp_server_operation_duration_seconds_count{error_type="-32602",gen_ai_tool_name="_other",mcp_method_name="tools/call",mcp_protocol_version="2026-07-28",network_transport="tcp"} 1`,
		`mcp_server_operation_duration_seconds_count{error_type="tool_error",gen_ai_tool_name="fail",mcp_method_name="tools/call",mcp_protocol_version="2026-07-28",network_transport="tcp"} 1`,
	}, scrape(t, l, OperationDurationName+"_count"))
	assert.Contains(t, scrape(t, l, RefusalsName), `fastmcp_refusals_total{limit="MaxBodyBytes"} 1`)
	assert.Contains(t, scrape(t, l, RefusalsName), `fastmcp_refusals_total{limit="MaxConnections"} 0`)
	assert.Equal(t, []string{"fastmcp_listen_streams_open 0"}, scrape(t, l, ListenStreamsName))
	assert.Equal(t, []string{"fastmcp_executor_queued 0"}, scrape(t, l, ExecutorQueuedName))
	assert.Equal(t, []string{"fastmcp_executor_running 0"}, scrape(t, l, ExecutorRunningName))
}

// TestMetricsMaxSeries checks MaxSeries: past it a new tool's requests are recorded as
// _other, and the tools already recorded keep their series.
func TestMetricsMaxSeries(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(MetricsConfig{Registerer: reg, MaxSeries: 1})
	require.NoError(t, err)
	record := func(tool string) {
		info := fastmcp.RequestInfo{Labels: &fastmcp.Labels{Method: "tools/call", Tool: tool, ProtocolVersion: "2026-07-28", Network: "tcp"}}
		m.RequestEnd(m.RequestStart(context.Background(), info), info, fastmcp.RequestOutcome{Duration: time.Millisecond})
	}
	record("a")
	record("b")
	record("c")
	record("a")
	l := startListener(t, reg, nil)
	assert.Equal(t, []string{
		`mcp_server_operation_duration_seconds_count{error_type="",gen_ai_tool_name="_other",mcp_method_name="tools/call",mcp_protocol_version="2026-07-28",network_transport="tcp"} 2`,
		`mcp_server_operation_duration_seconds_count{error_type="",gen_ai_tool_name="a",mcp_method_name="tools/call",mcp_protocol_version="2026-07-28",network_transport="tcp"} 2`,
	}, scrape(t, l, OperationDurationName+"_count"))

	_, err = NewMetrics(MetricsConfig{Registerer: reg, MaxSeries: -1})
	assert.ErrorIs(t, err, ErrInvalidConfig)
}

// TestMetricsSkipRerun checks that an attempt the transport serves again is not counted.
func TestMetricsSkipRerun(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(MetricsConfig{Registerer: reg})
	require.NoError(t, err)
	info := fastmcp.RequestInfo{Labels: &fastmcp.Labels{Method: "tools/call", Tool: "a"}}
	m.RequestEnd(context.Background(), info, fastmcp.RequestOutcome{Rerun: true})
	l := startListener(t, reg, nil)
	assert.Empty(t, scrape(t, l, OperationDurationName))
	m.RequestEnd(context.Background(), info, fastmcp.RequestOutcome{})
	assert.Len(t, scrape(t, l, OperationDurationName+"_count"), 1)
}

// TestMetricsRecentCollision records two label sets that hash to the same slot of the
// recent-series cache, and one label set at two addresses (as two servers, or a test, could
// make it): each tool keeps its own series, and the copies share theirs.
func TestMetricsRecentCollision(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(MetricsConfig{Registerer: reg})
	require.NoError(t, err)
	a := &fastmcp.Labels{Method: "tools/call", Tool: "a"}
	var b *fastmcp.Labels
	for i := 0; b == nil; i++ { // 256 slots: a label set of the same slot comes within a few thousand
		require.Less(t, i, 1_000_000, "no collision found")
		if c := (&fastmcp.Labels{Method: "tools/call", Tool: fmt.Sprint("t", i)}); recentSlot(c, "") == recentSlot(a, "") {
			b = c
		}
	}
	aCopy := &fastmcp.Labels{Method: "tools/call", Tool: strings.Clone("a")}
	for _, l := range []*fastmcp.Labels{a, b, a, aCopy, b, aCopy} {
		m.RequestEnd(context.Background(), fastmcp.RequestInfo{Labels: l}, fastmcp.RequestOutcome{})
	}
	l := startListener(t, reg, nil)
	assert.ElementsMatch(t, []string{
		`mcp_server_operation_duration_seconds_count{error_type="",gen_ai_tool_name="a",mcp_method_name="tools/call",mcp_protocol_version="",network_transport=""} 4`,
		`mcp_server_operation_duration_seconds_count{error_type="",gen_ai_tool_name="` + b.Tool + `",mcp_method_name="tools/call",mcp_protocol_version="",network_transport=""} 2`,
	}, scrape(t, l, OperationDurationName+"_count"))
}
