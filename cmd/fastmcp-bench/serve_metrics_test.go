package main

import (
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testServeMetrics runs serve with --metrics, --trace and --access-log: the announced
// metrics listener exposes the request's series, /readyz answers, the access log line and
// the span are on stderr, and the drain exits 0.
func testServeMetrics(t *testing.T, bin string) {
	s := startServe(t, bin, "--addr", "127.0.0.1:0", "--metrics", "127.0.0.1:0", "--trace", "--access-log", "--fixtures", "demo,conformance", "--tasks-store", "memory")
	require.Regexp(t, `^http://127\.0\.0\.1:\d+$`, s.debug.Metrics)
	code, _ := post(t, s.url, "tools/call", "echo",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}}`)
	require.Equal(t, http.StatusOK, code)

	client := &http.Client{Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	get := func(path string) (int, string) {
		resp, err := client.Get(s.debug.Metrics + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	code, body := get("/metrics")
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `mcp_server_operation_duration_seconds_count{error_type="",gen_ai_tool_name="echo",mcp_method_name="tools/call",mcp_protocol_version="2026-07-28",network_transport="tcp"} 1`+"\n")
	assert.Contains(t, body, `fastmcp_refusals_total{limit="MaxBodyBytes"} 0`+"\n")
	assert.Contains(t, body, "fastmcp_executor_running ")
	assert.Contains(t, body, "go_goroutines ")
	assert.Contains(t, body, `fastmcp_tasks{status="working"} 0`+"\n", "the tasks store is counted")
	code, body = get("/readyz")
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, "ready\n", body)

	assert.Equal(t, 0, s.stop(t, syscall.SIGTERM))
	logs := s.stderr.String()
	assert.Contains(t, logs, `msg="mcp request" method=tools/call tool=echo version=2026-07-28 network=tcp id=1 duration=`)
	var span string
	for line := range strings.Lines(logs) {
		if strings.Contains(line, "msg=span") {
			span = line
		}
	}
	assert.Contains(t, span, `name="tools/call echo" trace_id=4bf92f3577b34da6a3ce929d0e0e4736`)
	assert.Contains(t, span, "parent_id=00f067aa0ba902b7")
}
