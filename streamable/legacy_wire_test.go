package streamable

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/internal/wireschema"
	"github.com/fastmcp-go/fastmcp/internal/wirevector"
)

// The initialize-era handshake and the requests that follow it, byte for byte, on every
// stack and in both revisions, as the TypeScript SDK client sends them: initialize (no
// version header yet) answered with the offered revision and no Mcp-Session-Id,
// notifications/initialized 202 with no body, ping and logging/setLevel exactly {}, and a
// tools/call with the revision's result shape (no resultType, no _meta serverInfo).
func TestLegacyHandshake(t *testing.T) {
	for _, stack := range bothStacks {
		for _, v := range legacyVersions {
			t.Run(stack+"/"+v, func(t *testing.T) {
				addr, _ := startStack(t, stack, newCore(t), ListenerConfig{Config: Config{Logger: discardLogger}})
				c := newKeepAlive(t, addr)

				resp, body := c.roundTrip(legacyPost(addr, initializeBody("1", v), ""))
				require.Equal(t, http.StatusOK, resp.StatusCode, body)
				assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
				assert.Empty(t, resp.Header.Values("Mcp-Session-Id"), "stateless: no session is issued")
				assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"`+v+`","capabilities":{"logging":{},"tools":{}},"serverInfo":{"name":"test","version":"1.0.0"}}}`, body)
				requireLegacyValid(t, v, "InitializeResult", body)

				resp, body = c.roundTrip(legacyPost(addr, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, v))
				assert.Equal(t, http.StatusAccepted, resp.StatusCode)
				assert.Empty(t, body)
				assert.Empty(t, resp.Header.Get("Content-Type"))

				for _, tc := range []struct{ req, reply, def string }{
					{`{"jsonrpc":"2.0","id":2,"method":"ping"}`, `{"jsonrpc":"2.0","id":2,"result":{}}`, "EmptyResult"},
					{`{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"debug"}}`, `{"jsonrpc":"2.0","id":3,"result":{}}`, "EmptyResult"},
					{legacyCall("4", "echo", `{"text":"hi"}`), `{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"hi"}]}}`, "CallToolResult"},
					{`{"jsonrpc":"2.0","id":"five","method":"tools/call","params":{"name":"nope","arguments":{}}}`, `{"jsonrpc":"2.0","id":"five","error":{"code":-32602,"message":"Unknown tool: nope"}}`, ""},
				} {
					resp, body = c.roundTrip(legacyPost(addr, tc.req, v, "Mcp-Session-Id: made-up"))
					assert.Equal(t, http.StatusOK, resp.StatusCode, "a legacy JSON-RPC error travels in a 200: %s", body)
					assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
					assert.Empty(t, resp.Header.Values("Mcp-Session-Id"))
					assert.Equal(t, tc.reply, body)
					requireLegacyValid(t, v, tc.def, body)
				}
			})
		}
	}
}

// The header rules of an initialize-era request: the version header is required after
// initialize (none at all is the modern refusal, worded for both kinds of client), must be
// one the server serves (400 -32022 naming those it does) and must not repeat (400); the
// modern mirrored headers are neither required nor checked; an error about a request that
// reached its dialect is a 200; GET and DELETE are 405 with Allow: POST, session id or not.
func TestLegacyHeaderRules(t *testing.T) {
	for _, stack := range bothStacks {
		t.Run(stack, func(t *testing.T) {
			addr, _ := startStack(t, stack, newCore(t), ListenerConfig{Config: Config{Logger: discardLogger}})
			list := `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`
			for _, tc := range []struct {
				name   string
				raw    string
				status int
				body   string
			}{
				{"no version header", legacyPost(addr, list, ""), 400,
					`{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"Missing required request metadata: io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities (an initialize-era client sends the MCP-Protocol-Version header it negotiated)"}}`},
				{"unsupported version header", legacyPost(addr, list, "2024-11-05"), 400,
					`{"jsonrpc":"2.0","id":9,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28","2025-11-25","2025-06-18"],"requested":"2024-11-05"}}}`},
				{"repeated version header", legacyPost(addr, list, v1125, "MCP-Protocol-Version: 2025-11-25"), 400,
					`{"jsonrpc":"2.0","id":9,"error":{"code":-32020,"message":"MCP-Protocol-Version header is repeated"}}`},
				{"modern version header without _meta", legacyPost(addr, list, "2026-07-28", "Mcp-Method: tools/list"), 400,
					`{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"Missing required request metadata: io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities"}}`},
				{"mirrored headers ignored", legacyPost(addr, legacyCall("10", "echo", `{"text":"x"}`), v0618, "Mcp-Method: tools/list", "Mcp-Name: other"), 200,
					`{"jsonrpc":"2.0","id":10,"result":{"content":[{"type":"text","text":"x"}]}}`},
				{"unknown method is a 200", legacyPost(addr, `{"jsonrpc":"2.0","id":11,"method":"server/discover"}`, v1125), 200,
					`{"jsonrpc":"2.0","id":11,"error":{"code":-32601,"message":"Method not found"}}`},
				{"GET", "GET /mcp HTTP/1.1\r\nHost: " + addr + "\r\nAccept: text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\nMcp-Session-Id: s1\r\n\r\n", 405,
					`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Method not allowed: use POST"}}`},
				{"DELETE", "DELETE /mcp HTTP/1.1\r\nHost: " + addr + "\r\nMCP-Protocol-Version: 2025-06-18\r\nMcp-Session-Id: s1\r\n\r\n", 405,
					`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Method not allowed: use POST"}}`},
			} {
				t.Run(tc.name, func(t *testing.T) {
					resp, body := exchangeAt(t, addr, tc.raw)
					assert.Equal(t, tc.status, resp.StatusCode)
					assert.Equal(t, tc.body, body)
					if strings.Contains(body, `"error":`) {
						requireLegacyValid(t, v1125, "", body)
					} else {
						requireLegacyValid(t, v0618, "CallToolResult", body)
					}
					if tc.status == http.StatusMethodNotAllowed {
						assert.Equal(t, "POST", resp.Header.Get("Allow"))
					}
					assert.Empty(t, resp.Header.Values("Mcp-Session-Id"))
				})
			}
		})
	}
}

// The era classification table (legacy-eras.md §1) over HTTP. ping tells the eras apart:
// the initialize-era dialects answer it {} (200), 2026-07-28 has no such method (404).
func TestEraClassificationHTTP(t *testing.T) {
	const modernPing = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{` + meta + `}}`
	const bare = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for _, stack := range bothStacks {
		t.Run(stack, func(t *testing.T) {
			addr, _ := startStack(t, stack, newCore(t), ListenerConfig{Config: Config{Logger: discardLogger}})
			for _, tc := range []struct {
				name    string
				raw     string
				status  int
				body    string
				initAns string // the negotiated version, for an initialize
			}{
				{"modern _meta with a legacy header: modern, its header rules apply", legacyPost(addr, modernPing, v1125, "Mcp-Method: ping"), 400,
					`{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"MCP-Protocol-Version header does not match the request metadata"}}`, ""},
				{"modern _meta: modern", legacyPost(addr, modernPing, "2026-07-28", "Mcp-Method: ping"), 404,
					`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`, ""},
				{"initialize with Mcp-Method and a version header: legacy", legacyPost(addr, initializeBody("1", v1125), v1125, "Mcp-Method: initialize"), 200, "", v1125},
				{"initialize with the modern header: legacy, counter-offered", legacyPost(addr, initializeBody("1", "2026-07-28"), "2026-07-28"), 200, "", v1125},
				{"initialize with a repeated, unknown header: its header is not read", legacyPost(addr, initializeBody("1", v0618), "1999-01-01", "MCP-Protocol-Version: 2025-11-25"), 200, "", v0618},
				{"legacy header, no _meta: that dialect", legacyPost(addr, bare, v0618), 200, `{"jsonrpc":"2.0","id":1,"result":{}}`, ""},
				{"legacy header 2025-11-25", legacyPost(addr, bare, v1125), 200, `{"jsonrpc":"2.0","id":1,"result":{}}`, ""},
				{"modern header, no _meta: modern, malformed", legacyPost(addr, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "2026-07-28", "Mcp-Method: tools/list"), 400,
					`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Missing required request metadata: io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities"}}`, ""},
				{"no header, no _meta: refused", legacyPost(addr, bare, ""), 400,
					`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Missing required request metadata: io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities (an initialize-era client sends the MCP-Protocol-Version header it negotiated)"}}`, ""},
				{"unknown header: 400 -32022", legacyPost(addr, bare, "2025-03-26"), 400,
					`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28","2025-11-25","2025-06-18"],"requested":"2025-03-26"}}}`, ""},
				{"notification, no header: accepted", legacyPost(addr, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, ""), 202, "", ""},
				{"response, no header: accepted", legacyPost(addr, `{"jsonrpc":"2.0","id":"x","result":{}}`, ""), 202, "", ""},
			} {
				t.Run(tc.name, func(t *testing.T) {
					resp, body := exchangeAt(t, addr, tc.raw)
					assert.Equal(t, tc.status, resp.StatusCode, body)
					if tc.initAns != "" {
						assert.Contains(t, body, `"protocolVersion":"`+tc.initAns+`"`)
						requireLegacyValid(t, tc.initAns, "InitializeResult", body)
						return
					}
					assert.Equal(t, tc.body, body)
					switch {
					case tc.status == http.StatusAccepted:
					case strings.Contains(body, `"error":`):
						requireLegacyValid(t, v1125, "", body)
						wireschema.RequireValidRev(t, wireschema.Latest, "JSONRPCErrorResponse", []byte(body))
					default:
						requireLegacyValid(t, v1125, "EmptyResult", body)
					}
				})
			}
		})
	}
}

// With the initialize-era dialects off (Config.Dialects), initialize gets the modern-only
// answer (404 -32601 naming the versions served) and a legacy header is a version not served.
func TestModernOnlyHTTP(t *testing.T) {
	for _, stack := range bothStacks {
		t.Run(stack, func(t *testing.T) {
			core, err := fastmcp.NewServer(fastmcp.Implementation{Name: "test", Version: "1.0.0"}, &fastmcp.Config{Dialects: []fastmcp.Dialect{fastmcp.Modern}})
			require.NoError(t, err)
			core.AddRawTool(fastmcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)},
				func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
					return fastmcp.ToolResult{}, nil
				})
			addr, _ := startStack(t, stack, core, ListenerConfig{Config: Config{Logger: discardLogger}})
			resp, body := exchangeAt(t, addr, legacyPost(addr, initializeBody("1", v1125), ""))
			assert.Equal(t, http.StatusNotFound, resp.StatusCode)
			assert.Equal(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found","data":{"supported":["2026-07-28"],"requested":"2025-11-25"}}}`, body)
			wireschema.RequireValidRev(t, wireschema.Latest, "JSONRPCErrorResponse", []byte(body))
			resp, body = exchangeAt(t, addr, legacyPost(addr, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, v1125))
			assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
			assert.Equal(t, `{"jsonrpc":"2.0","id":2,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2025-11-25"}}}`, body)
			resp, body = exchangeAt(t, addr, legacyPost(addr, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, ""))
			assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
			assert.Equal(t, `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Missing required request metadata: io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities"}}`, body,
				"no initialize-era client to address: the modern wording alone")
		})
	}
}

// The seed system's acceptance case 59 (seed-system-snodo.md §14.9), over HTTP: an
// initialize offering an unknown version negotiates the newest legacy one; a malformed
// initialize is -32602; an initialize-era error is a 200 where 2026-07-28 keeps its status;
// a cursor of one dialect is refused by the other.
func TestSeedCase59(t *testing.T) {
	for _, stack := range bothStacks {
		t.Run(stack, func(t *testing.T) {
			core, _ := wirevector.NewFixtureServer(t, "pages") // five tools, two a page
			addr, _ := startStack(t, stack, core, ListenerConfig{Config: Config{Logger: discardLogger}})

			resp, body := exchangeAt(t, addr, legacyPost(addr, initializeBody("1", "1999-01-01"), ""))
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Contains(t, body, `"result":{"protocolVersion":"2025-11-25",`)
			requireLegacyValid(t, v1125, "InitializeResult", body)

			resp, body = exchangeAt(t, addr, legacyPost(addr, `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`, ""))
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Equal(t, `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params: clientInfo must be an object with name and version strings"}}`, body)
			requireLegacyValid(t, v1125, "", body)

			resp, body = exchangeAt(t, addr, legacyPost(addr, `{"jsonrpc":"2.0","id":3,"method":"no/such"}`, v1125))
			assert.Equal(t, http.StatusOK, resp.StatusCode, "legacy: 200")
			assert.Equal(t, `{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"}}`, body)
			requireLegacyValid(t, v1125, "", body)
			resp, _ = exchangeAt(t, addr, legacyPost(addr, `{"jsonrpc":"2.0","id":3,"method":"no/such","params":{`+meta+`}}`, "2026-07-28", "Mcp-Method: no/such"))
			assert.Equal(t, http.StatusNotFound, resp.StatusCode, "2026-07-28 keeps its 404")

			_, legacyPage := exchangeAt(t, addr, legacyPost(addr, `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`, v1125))
			legacyCursor := cursorOf(t, legacyPage)
			_, modernPage := exchangeAt(t, addr, legacyPost(addr, `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{`+meta+`}}`, "2026-07-28", "Mcp-Method: tools/list"))
			modernCursor := cursorOf(t, modernPage)

			requireLegacyValid(t, v1125, "ListToolsResult", legacyPage)
			resp, body = exchangeAt(t, addr, legacyPost(addr, `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"cursor":"`+modernCursor+`"}}`, v1125))
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Equal(t, `{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"Invalid pagination cursor"}}`, body, "a 2026-07-28 cursor on 2025-11-25")
			requireLegacyValid(t, v1125, "", body)
			resp, body = exchangeAt(t, addr, legacyPost(addr, `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"`+legacyCursor+`",`+meta+`}}`, "2026-07-28", "Mcp-Method: tools/list"))
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Equal(t, `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid pagination cursor"}}`, body, "a 2025-11-25 cursor on 2026-07-28")
		})
	}
}

// cursorOf returns a list page's nextCursor.
func cursorOf(t *testing.T, page string) string {
	t.Helper()
	_, after, ok := strings.Cut(page, `"nextCursor":"`)
	require.True(t, ok, "a next page: %s", page)
	cursor, _, ok := strings.Cut(after, `"`)
	require.True(t, ok)
	return cursor
}

// A legacy and a modern client interleaved on one server, each on its own keep-alive
// connection, first request by request, then concurrently: every answer has its own era's
// shape.
func TestEraInterleaved(t *testing.T) {
	legacyReply := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"legacy ` + id + `"}]}}`
	}
	modernReply := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"complete","content":[{"type":"text","text":"modern ` + id + `"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"test","version":"1.0.0"}}}}`
	}
	for _, stack := range bothStacks {
		t.Run(stack, func(t *testing.T) {
			addr, _ := startStack(t, stack, newCore(t), ListenerConfig{Config: Config{Logger: discardLogger}})
			legacy, modern := newKeepAlive(t, addr), newKeepAlive(t, addr)
			_, body := legacy.roundTrip(legacyPost(addr, initializeBody("0", v0618), ""))
			require.Contains(t, body, `"protocolVersion":"2025-06-18"`)
			for i := 1; i <= 20; i++ {
				id := strconv.Itoa(i)
				_, body := legacy.roundTrip(legacyPost(addr, legacyCall(id, "echo", `{"text":"legacy `+id+`"}`), v0618))
				require.Equal(t, legacyReply(id), body)
				requireLegacyValid(t, v0618, "CallToolResult", body)
				_, body = modern.roundTrip(postTo(addr, call(id, "echo", `{"text":"modern `+id+`"}`), callHeaders("echo")...))
				require.Equal(t, modernReply(id), body)
				wireschema.RequireValid(t, "CallToolResultResponse", []byte(body))
			}

			var wg sync.WaitGroup
			client := &http.Client{}
			t.Cleanup(client.CloseIdleConnections)
			for _, era := range []string{"legacy", "modern"} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 1; i <= 50; i++ {
						id := strconv.Itoa(i)
						var req *http.Request
						if era == "legacy" {
							req, _ = http.NewRequest(http.MethodPost, "http://"+addr+"/mcp", strings.NewReader(legacyCall(id, "echo", `{"text":"legacy `+id+`"}`)))
							req.Header.Set("MCP-Protocol-Version", v1125)
						} else {
							req, _ = http.NewRequest(http.MethodPost, "http://"+addr+"/mcp", strings.NewReader(call(id, "echo", `{"text":"modern `+id+`"}`)))
							req.Header.Set("MCP-Protocol-Version", "2026-07-28")
							req.Header.Set("Mcp-Method", "tools/call")
							req.Header.Set("Mcp-Name", "echo")
						}
						req.Header.Set("Content-Type", "application/json")
						req.Header.Set("Accept", "application/json, text/event-stream")
						resp, err := client.Do(req)
						if !assert.NoError(t, err) {
							return
						}
						b, err := io.ReadAll(resp.Body)
						resp.Body.Close()
						assert.NoError(t, err)
						want := modernReply(id)
						if era == "legacy" {
							want = legacyReply(id)
						}
						assert.Equal(t, want, string(b))
					}
				}()
			}
			wg.Wait()
		})
	}
}

// keepAlive is one client connection for a sequence of requests.
type keepAlive struct {
	t  testing.TB
	br *bufio.Reader
	w  io.Writer
	c  net.Conn
}

func newKeepAlive(t testing.TB, addr string) *keepAlive {
	c := dialAt(t, addr)
	return &keepAlive{t: t, br: bufio.NewReader(c), w: c, c: c}
}

// roundTrip sends one raw request and reads its whole response.
func (k *keepAlive) roundTrip(raw string) (*http.Response, string) {
	_, err := io.WriteString(k.w, raw)
	require.NoError(k.t, err)
	return readResponse(k.t, k.br)
}
