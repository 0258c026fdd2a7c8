package client

import (
	"bufio"
	"context"
	"strconv"
	"strings"
	"sync/atomic"
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
	c := connect(t, f.url(), Config{Era: EraModern, ClientName: "t", ClientVersion: "1"})
	c.tools.set(map[string][]headerArg{"deploy": {{arg: "region", header: "Region"}, {arg: "n", header: "N"},
		{arg: "empty", header: "Empty"}, {arg: "none", header: "None"}, {arg: "absent", header: "Absent"}}})
	_, err := c.CallTool(context.Background(), "deploy", []byte(`{"region":"Hello, 世界","n":42,"empty":"","none":null}`))
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
		"Mcp-Param-N: 42\r\n"+
		"Mcp-Param-Empty: ", string(r.head), "null and absent arguments send no header")
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{"region":"Hello, 世界","n":42,"empty":"","none":null},`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},`+
		`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}}}`, string(r.body))
}

// The legacy handshake: initialize offering 2025-11-25 with no version header, then
// notifications/initialized and every later request with MCP-Protocol-Version and the session.
func TestWireLegacyHandshake(t *testing.T) {
	reqs := make(chan *fakeReq, 4)
	gets := make(chan *fakeReq, 1)
	f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		if strings.HasPrefix(string(r.head), "GET ") { // the standalone stream: none here
			gets <- r
			w.WriteString("HTTP/1.1 405 Method Not Allowed\r\nAllow: POST\r\nContent-Length: 0\r\n\r\n")
			return true
		}
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
	assert.Equal(t, "sess-1", (<-gets).header("Mcp-Session-Id"), "a sessionful server gets the GET stream")

	require.NoError(t, c.Ping(context.Background()))
	ping := <-reqs
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"method":"ping","params":{}}`, string(ping.body))
	assert.Equal(t, "2025-06-18", ping.header("MCP-Protocol-Version"))
	assert.Empty(t, ping.header("Mcp-Method"), "legacy requests mirror no method")
}

// A -32022 naming the version just sent is retried once, under a new id, with that version in
// the header and _meta; a second one is the error.
func TestUnsupportedVersionRetriedOnce(t *testing.T) {
	reqs := make(chan *fakeReq, 3)
	var n atomic.Int64
	f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		reqs <- r
		body := `{"jsonrpc":"2.0","id":` + idOf(r.body) + `,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"x"}}}`
		if n.Add(1) == 2 {
			jsonResp(w, `{"jsonrpc":"2.0","id":`+idOf(r.body)+`,"result":{"resultType":"complete","content":[]}}`)
			return true
		}
		w.WriteString("HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
		return true
	})
	c := connect(t, f.url(), Config{Era: EraModern})
	_, err := c.CallTool(context.Background(), "echo", nil)
	require.NoError(t, err)
	first, second := <-reqs, <-reqs
	assert.Contains(t, string(first.body), `"id":1,`)
	assert.Contains(t, string(second.body), `"id":2,`)
	assert.Contains(t, string(second.body), `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`)
	assert.Equal(t, "2026-07-28", second.header("MCP-Protocol-Version"))

	// every later answer is -32022: one retry, then the typed error
	_, err = c.CallTool(context.Background(), "echo", nil)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, int64(CodeUnsupportedVersion), e.Code)
	assert.Len(t, reqs, 2)
}

// A sessionful legacy server's requests outside any call arrive on the standalone GET stream;
// the handlers answer each by POST.
func TestLegacyServerStream(t *testing.T) {
	answers := make(chan *fakeReq, 1)
	gets := make(chan *fakeReq, 1)
	var f *fakeServer
	ready := make(chan struct{})
	f = newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		<-ready
		switch {
		case strings.HasPrefix(string(r.head), "GET "):
			gets <- r
			ev := `{"jsonrpc":"2.0","id":"s1","method":"elicitation/create","params":{"message":"name?","requestedSchema":{"type":"object"}}}`
			w.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
			chunk := "data: " + ev + "\n\n"
			w.WriteString(strconv.FormatInt(int64(len(chunk)), 16) + "\r\n" + chunk + "\r\n")
			_ = w.Flush()
			<-f.done
			return false
		case idOf(r.body) != "":
			jsonResp(w, `{"jsonrpc":"2.0","id":`+idOf(r.body)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`,
				"Mcp-Session-Id: sess-9")
		default:
			if strings.Contains(string(r.body), `"id":"s1"`) {
				answers <- r
			}
			w.WriteString("HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")
		}
		return true
	})
	close(ready)
	cfg := handlers()
	cfg.Era = EraLegacy
	c := connect(t, f.url(), cfg)
	get := <-gets
	assert.Equal(t, "text/event-stream", get.header("Accept"))
	assert.Equal(t, "sess-9", get.header("Mcp-Session-Id"))
	assert.Equal(t, "2025-11-25", get.header("MCP-Protocol-Version"))
	a := <-answers
	assert.Equal(t, `{"jsonrpc":"2.0","id":"s1","result":{"action":"accept","content":{"name":"Ada","username":"ada","email":"ada@example.com","ok":true}}}`, string(a.body))
	assert.Equal(t, "sess-9", a.header("Mcp-Session-Id"))
	require.NoError(t, c.Close())
}

// A legacy call's stream that ends after a priming event is resumed with GET, Last-Event-ID
// and the server's retry delay (SEP-1699), a bounded number of times.
func TestLegacyStreamResumption(t *testing.T) {
	for name, answer := range map[string]bool{"resumed": true, "bounded": false} {
		t.Run(name, func(t *testing.T) {
			gets := make(chan string, 16)
			var callID atomic.Value
			f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
				prime := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\nid: e1\nretry: 5\ndata:\n\n"
				switch {
				case strings.HasPrefix(string(r.head), "GET "):
					gets <- r.header("Last-Event-ID")
					if answer {
						w.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n" +
							"data: {\"jsonrpc\":\"2.0\",\"id\":" + callID.Load().(string) + ",\"result\":{\"content\":[]}}\n\n")
						return false
					}
					w.WriteString(prime)
					return false
				case strings.Contains(string(r.body), `"initialize"`):
					jsonResp(w, `{"jsonrpc":"2.0","id":`+idOf(r.body)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`)
				case strings.Contains(string(r.body), `"tools/call"`):
					callID.Store(idOf(r.body))
					w.WriteString(prime)
					return false
				default:
					w.WriteString("HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")
				}
				return true
			})
			c := connect(t, f.url(), Config{Era: EraLegacy})
			_, err := c.CallTool(context.Background(), "echo", nil)
			if answer {
				require.NoError(t, err)
				assert.Equal(t, "e1", <-gets)
				return
			}
			assert.ErrorIs(t, err, ErrTooManyResumes)
			assert.Len(t, gets, maxResumes)
		})
	}
}
