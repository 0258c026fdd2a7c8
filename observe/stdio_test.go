package observe

import (
	"bufio"
	"context"
	"io"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/internal/wireschema"
	"github.com/fastmcp-go/fastmcp/stdio"
)

// TestMetricsOverStdio serves a literal line over stdio and scrapes the series: the network
// transport is "pipe".
func TestMetricsOverStdio(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(MetricsConfig{Registerer: reg})
	require.NoError(t, err)
	core := newCore(t, m)
	l := startListener(t, reg, nil)

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- stdio.Serve(context.Background(), core, stdio.Config{Input: inR, Output: outW}) }()
	_, err = io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+meta+`},"name":"echo","arguments":{"text":"hi"}}}`+"\n")
	require.NoError(t, err)
	line, err := bufio.NewReader(outR).ReadString('\n')
	require.NoError(t, err)
	wireschema.RequireValid(t, "CallToolResultResponse", []byte(line))
	require.NoError(t, inW.Close()) // the end of input ends Serve
	require.NoError(t, <-done)

	assert.Equal(t, []string{
		`mcp_server_operation_duration_seconds_count{error_type="",gen_ai_tool_name="echo",mcp_method_name="tools/call",mcp_protocol_version="2026-07-28",network_transport="pipe"} 1`,
	}, scrape(t, l, OperationDurationName+"_count"))
}
