package main

import (
	"regexp"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testServeGatewayTrace: serve --trace --backend in front of a backend that traces too (serve
// --trace): the backend's span for the forwarded call is the child of the gateway's span,
// which is the child of the caller's traceparent, all in one trace.
func testServeGatewayTrace(t *testing.T, bin string) {
	backend := startServe(t, bin, "--addr", "127.0.0.1:0", "--trace")
	gw := startServe(t, bin, "--addr", "127.0.0.1:0", "--trace", "--backend", "web="+backend.url)
	code, body := post(t, gw.url, "tools/call", "echo",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}}`)
	require.Equal(t, 200, code, body)
	require.Equal(t, 0, gw.stop(t, syscall.SIGTERM))
	require.Equal(t, 0, backend.stop(t, syscall.SIGTERM))

	span := regexp.MustCompile(`msg=span name="tools/call echo" trace_id=(\w+) span_id=(\w+).* parent_id=(\w+)`)
	g := span.FindStringSubmatch(gw.stderr.String())
	require.NotNil(t, g, "the gateway's span: %s", gw.stderr.String())
	b := span.FindStringSubmatch(backend.stderr.String())
	require.NotNil(t, b, "the backend's span: %s", backend.stderr.String())
	assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", g[1])
	assert.Equal(t, "00f067aa0ba902b7", g[3], "the gateway's span is the caller's child")
	assert.Equal(t, g[1], b[1], "one trace")
	assert.Equal(t, g[2], b[3], "the backend's span is the gateway's child")
}
