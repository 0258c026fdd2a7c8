package gateway

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

const (
	callerTraceparent  = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	callerTracestate   = "vendor=abc"
	gatewayTraceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-b7ad6b7169203331-01"
)

// traceBackend is a backend whose tool "trace" answers with the trace context it was called
// with, in either era.
func traceBackend(t *testing.T, dialects ...fastmcp.Dialect) string {
	srv := newBackendServer("t", nil, dialects...)
	fastmcp.AddTool(srv, fastmcp.Tool{Name: "trace", Description: "the trace context of the call"},
		func(ctx context.Context, r *fastmcp.Request, in struct{}) (fastmcp.ToolResult, error) {
			tp, ts, baggage := r.TraceContext()
			return fastmcp.ToolResult{Text: tp + " " + ts + " " + baggage}, nil
		})
	url, _ := serveHTTP(t, srv, "", nil)
	return url
}

// A forwarded call carries the caller's traceparent and tracestate to a backend of either
// era, unchanged (its baggage stays with the Gateway); with Config.TraceContext it carries
// what that gives, the Gateway's own span.
func TestTraceContextForwarded(t *testing.T) {
	for name, dialects := range map[string][]fastmcp.Dialect{"modern backend": nil, "legacy backend": {fastmcp.Legacy20251125}} {
		t.Run(name, func(t *testing.T) {
			url := traceBackend(t, dialects...)
			for _, tc := range []struct {
				name string
				hook TraceContextFunc
				want string
			}{
				{"passed on", nil, callerTraceparent + " " + callerTracestate + " "},
				{"the hook's", func(context.Context) (string, string) { return gatewayTraceparent, "" }, gatewayTraceparent + "  "},
				{"the hook gives none", func(context.Context) (string, string) { return "", "" }, callerTraceparent + " " + callerTracestate + " "},
			} {
				t.Run(tc.name, func(t *testing.T) {
					_, gw := startGateway(t, Config{Backends: []Backend{{Name: "t", URL: url}}, TraceContext: tc.hook})
					status, body := post(t, gw, "tools/call", "trace", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"trace","_meta":{`+
						`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},`+
						`"traceparent":"`+callerTraceparent+`","tracestate":"`+callerTracestate+`","baggage":"user=secret"}}}`)
					require.Equal(t, 200, status, body)
					assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"gateway","version":"1"}},"content":[{"type":"text","text":"`+tc.want+`"}]}}`, body)
				})
			}
		})
	}
}

// A caller without a trace context sends none on.
func TestTraceContextAbsent(t *testing.T) {
	_, gw := startGateway(t, Config{Backends: []Backend{{Name: "t", URL: traceBackend(t)}}})
	c := connect(t, gw, client.EraModern)
	res, err := c.CallTool(context.Background(), "trace", nil)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"text","text":"  "}]`, string(res.Content))
}
