package client

import (
	"bufio"
	"context"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The exact bytes of a modern tools/call: head, mirrored headers and body with its _meta.
func TestWireModernCallTool(t *testing.T) {
	reqs := make(chan *fakeReq, 1)
	f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		reqs <- r
		jsonResp(w, `{"jsonrpc":"2.0","id":`+idOf(r.body)+`,"result":{"resultType":"complete","content":[]}}`)
		return true
	})
	c := connect(t, f.url(), Config{ClientName: "t", ClientVersion: "1"})
	c.tools.set(map[string][]headerArg{"deploy": {{arg: "region", header: "Region"}, {arg: "n", header: "N"}}})
	_, err := c.CallTool(context.Background(), "deploy", []byte(`{"region":"Hello, 世界","n":42}`))
	require.NoError(t, err)
	r := <-reqs
	assert.Equal(t, "POST /mcp HTTP/1.1\r\n"+
		"Host: "+f.ln.Addr().String()+"\r\n"+
		"Content-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\n"+
		"Content-Length: "+strconv.Itoa(len(r.body))+"\r\n"+
		"MCP-Protocol-Version: 2026-07-28\r\n"+
		"Mcp-Method: tools/call\r\n"+
		"Mcp-Name: deploy\r\n"+
		"Mcp-Param-Region: =?base64?SGVsbG8sIOS4lueVjA==?=\r\n"+
		"Mcp-Param-N: 42", string(r.head))
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{"region":"Hello, 世界","n":42},`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},`+
		`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}}}`, string(r.body))
}

// The legacy handshake: initialize offering 2025-11-25 with no version header, then
// notifications/initialized and every later request with MCP-Protocol-Version and the session.
func TestWireLegacyHandshake(t *testing.T) {
	reqs := make(chan *fakeReq, 4)
	f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		reqs <- r
		if id := idOf(r.body); id != "" {
			jsonResp(w, `{"jsonrpc":"2.0","id":`+id+`,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`,
				"Mcp-Session-Id: sess-1")
		} else {
			w.WriteString("HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")
		}
		return true
	})
	c := connect(t, f.url(), Config{Era: EraLegacy, ClientName: "t", ClientVersion: "1"})
	assert.Equal(t, "2025-06-18", c.ProtocolVersion())
	init := <-reqs
	assert.Empty(t, init.header("MCP-Protocol-Version"))
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, string(init.body))
	done := <-reqs
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, string(done.body))
	assert.Equal(t, "2025-06-18", done.header("MCP-Protocol-Version"))
	assert.Equal(t, "sess-1", done.header("Mcp-Session-Id"))

	require.NoError(t, c.Ping(context.Background()))
	ping := <-reqs
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"method":"ping","params":{}}`, string(ping.body))
	assert.Equal(t, "2025-06-18", ping.header("MCP-Protocol-Version"))
	assert.Empty(t, ping.header("Mcp-Method"), "legacy requests mirror no method")
}
