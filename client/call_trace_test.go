package client

import (
	"bufio"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/internal/wireschema"
)

const (
	testTraceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	testTracestate  = "congo=t61rcWkgMzE"
)

// A modern call made WithTraceContext carries traceparent and tracestate in its _meta, after
// the client's own members and before the progress token.
func TestWithTraceContextModernWire(t *testing.T) {
	reqs := make(chan *fakeReq, 1)
	f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		reqs <- r
		jsonResp(w, `{"jsonrpc":"2.0","id":`+idOf(r.body)+`,"result":{"resultType":"complete","content":[]}}`)
		return true
	})
	c := connect(t, f.url(), Config{Era: EraModern, ClientName: "t", ClientVersion: "1"})
	_, err := c.CallTool(context.Background(), "work", nil, WithTraceContext(testTraceparent, testTracestate), WithProgress(func(Progress) {}))
	require.NoError(t, err)
	r := <-reqs
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"work","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},`+
		`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"traceparent":"`+testTraceparent+`","tracestate":"`+testTracestate+`","progressToken":1}}}`, string(r.body))
	wireschema.RequireValid(t, "CallToolRequest", r.body)
}

// An initialize-era call has no _meta of its own: WithTraceContext makes one. An empty
// traceparent, or one past 512 bytes, sends nothing; so does the tracestate alone.
func TestWithTraceContextLegacyWire(t *testing.T) {
	reqs := make(chan *fakeReq, 4)
	f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		id := idOf(r.body)
		switch decode.Lookup(r.body, "method").String() {
		case "initialize":
			jsonResp(w, legacyInitResult(id, "2025-11-25"))
		case "tools/call":
			reqs <- r
			jsonResp(w, `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[]}}`)
		default:
			w.WriteString("HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")
		}
		return true
	})
	c := connect(t, f.url(), Config{Era: EraLegacy})
	for _, tc := range []struct{ traceparent, tracestate, want string }{
		{testTraceparent, "", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"work","_meta":{"traceparent":"` + testTraceparent + `"}}}`},
		{"", testTracestate, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"work"}}`},
		{strings.Repeat("0", 513), "", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"work"}}`},
	} {
		_, err := c.CallTool(context.Background(), "work", nil, WithTraceContext(tc.traceparent, tc.tracestate))
		require.NoError(t, err)
		assert.Equal(t, tc.want, string((<-reqs).body))
	}
}
