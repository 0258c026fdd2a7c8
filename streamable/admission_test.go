package streamable

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// rawPost builds a POST with exactly the given header lines (no defaults).
func rawPost(path, body string, headers ...string) string {
	return "POST " + path + " HTTP/1.1\r\n" + strings.Join(headers, "\r\n") + "\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

func list(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list","params":{` + meta + `}}`
}

// TestAdmission walks the admission order with literal requests, on the native listener and
// on the net/http adapter alike: each refusal's status and exact body, ids echoed only once
// the body parsed.
func TestAdmission(t *testing.T) {
	for _, stack := range bothStacks {
		t.Run(stack, func(t *testing.T) {
			addr, _ := startStack(t, stack, newCore(t), ListenerConfig{})
			testAdmission(t, addr)
		})
	}
}

func testAdmission(t *testing.T, addr string) {
	host := "Host: " + addr
	ct, acc, pv := "Content-Type: application/json", "Accept: application/json, text/event-stream", "MCP-Protocol-Version: 2026-07-28"
	std := []string{host, ct, acc, pv}
	with := func(extra ...string) []string { return append(append([]string{}, std...), extra...) }
	nullErr := func(code int, msg string) string {
		return `{"jsonrpc":"2.0","id":null,"error":{"code":` + strconv.Itoa(code) + `,"message":"` + msg + `"}}`
	}
	idErr := func(id string, code int, msg string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":` + strconv.Itoa(code) + `,"message":"` + msg + `"}}`
	}
	tests := []struct {
		name   string
		raw    string
		status int
		body   string
	}{
		{"wrong path", rawPost("/other", list("1"), with("Mcp-Method: tools/list")...), 404, nullErr(-32600, "Not found")},
		{"GET", "GET /mcp HTTP/1.1\r\n" + host + "\r\n\r\n", 405, nullErr(-32600, "Method not allowed: use POST")},
		{"foreign origin", rawPost("/mcp", list("1"), with("Mcp-Method: tools/list", "Origin: http://evil.example")...), 403, nullErr(-32600, "Forbidden: origin not allowed")},
		{"origin with userinfo", rawPost("/mcp", list("1"), with("Mcp-Method: tools/list", "Origin: http://user@localhost")...), 403, nullErr(-32600, "Forbidden: origin not allowed")},
		{"two origins", rawPost("/mcp", list("1"), with("Mcp-Method: tools/list", "Origin: http://localhost", "Origin: http://localhost")...), 403, nullErr(-32600, "Forbidden: origin not allowed")},
		{"loopback origin", rawPost("/mcp", list("1"), with("Mcp-Method: tools/list", "Origin: http://localhost:3000")...), 200, ""},
		{"DNS rebinding host", rawPost("/mcp", list("1"), "Host: evil.example", ct, acc, pv, "Mcp-Method: tools/list"), 403, nullErr(-32600, "Forbidden: host not allowed")},
		{"host with loopback prefix", rawPost("/mcp", list("1"), "Host: localhost.evil.example:4000", ct, acc, pv, "Mcp-Method: tools/list"), 403, nullErr(-32600, "Forbidden: host not allowed")},
		{"upper-case loopback host", rawPost("/mcp", list("1"), "Host: LOCALHOST:4000", ct, acc, pv, "Mcp-Method: tools/list"), 200, ""},
		{"IPv6 loopback host", rawPost("/mcp", list("1"), "Host: [::1]:4000", ct, acc, pv, "Mcp-Method: tools/list"), 200, ""},
		{"text/plain", rawPost("/mcp", list("1"), host, "Content-Type: text/plain", acc, pv, "Mcp-Method: tools/list"), 415, nullErr(-32600, "Unsupported Media Type: Content-Type must be application/json")},
		{"json with charset", rawPost("/mcp", list("1"), host, "Content-Type: application/json; charset=utf-8", acc, pv, "Mcp-Method: tools/list"), 200, ""},
		{"accept json only", rawPost("/mcp", list("1"), host, ct, "Accept: application/json", pv, "Mcp-Method: tools/list"), 406, nullErr(-32600, "Not Acceptable: Accept must list application/json and text/event-stream")},
		{"accept in other order", rawPost("/mcp", list("1"), host, ct, "Accept: text/event-stream, application/json", pv, "Mcp-Method: tools/list"), 200, ""},
		{"not JSON", rawPost("/mcp", `{not-json`, with("Mcp-Method: tools/list")...), 400, nullErr(-32700, "Parse error: invalid JSON")},
		{"batch", rawPost("/mcp", `[`+list("1")+`]`, with("Mcp-Method: tools/list")...), 400, nullErr(-32600, "Invalid Request: batch requests are not supported")},
		{"fractional id", rawPost("/mcp", `{"jsonrpc":"2.0","id":1.5,"method":"tools/list","params":{`+meta+`}}`, with("Mcp-Method: tools/list")...), 400, nullErr(-32600, "Invalid Request: id must be an integer, not a fraction")},
		{"65-digit integer", rawPost("/mcp", `{"jsonrpc":"2.0","id":1`+strings.Repeat("0", 64)+`,"method":"tools/list"}`, with("Mcp-Method: tools/list")...), 400, nullErr(-32700, "Parse error: integer literal exceeds 64 digits")},
		{"posted notification", rawPost("/mcp", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, with()...), 202, ""},
		{"posted response", rawPost("/mcp", `{"jsonrpc":"2.0","id":1,"result":{}}`, with()...), 202, ""},
		{"missing _meta", rawPost("/mcp", `{"jsonrpc":"2.0","id":7,"method":"server/discover","params":{}}`, with("Mcp-Method: server/discover")...), 400,
			idErr("7", -32602, "Missing required request metadata: io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities")},
		{"missing Mcp-Method", rawPost("/mcp", list(`"a"`), with()...), 400, idErr(`"a"`, -32020, "Mcp-Method header is missing or does not match the method")},
		{"Mcp-Method case differs", rawPost("/mcp", list("2"), with("Mcp-Method: TOOLS/LIST")...), 400, idErr("2", -32020, "Mcp-Method header is missing or does not match the method")},
		{"lower-case header names", rawPost("/mcp", list("2"), host, ct, acc, "mcp-protocol-version: 2026-07-28", "mcp-method: tools/list"), 200, ""},
		{"version header mismatch", rawPost("/mcp", list("3"), host, ct, acc, "MCP-Protocol-Version: 2025-11-25", "Mcp-Method: tools/list"), 400,
			idErr("3", -32020, "MCP-Protocol-Version header does not match the request metadata")},
		{"version header missing", rawPost("/mcp", list("3"), host, ct, acc, "Mcp-Method: tools/list"), 400,
			idErr("3", -32020, "MCP-Protocol-Version header is missing or repeated")},
		{"unsupported version", rawPost("/mcp", `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-12-31","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			host, ct, acc, "MCP-Protocol-Version: 2099-12-31", "Mcp-Method: tools/list"), 400,
			`{"jsonrpc":"2.0","id":4,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2099-12-31"}}}`},
		{"unknown method", rawPost("/mcp", `{"jsonrpc":"2.0","id":5,"method":"ping","params":{`+meta+`}}`, with("Mcp-Method: ping")...), 404, idErr("5", -32601, "Method not found")},
		{"missing Mcp-Name", rawPost("/mcp", call("6", "echo", `{"text":"x"}`), with("Mcp-Method: tools/call")...), 400, idErr("6", -32020, "Mcp-Name header is missing or repeated")},
		{"wrong Mcp-Name", rawPost("/mcp", call("6", "echo", `{"text":"x"}`), with("Mcp-Method: tools/call", "Mcp-Name: other")...), 400, idErr("6", -32020, "Mcp-Name header does not match the request")},
		{"Mcp-Name with whitespace", rawPost("/mcp", call("6", "echo", `{"text":"x"}`), with("Mcp-Method: tools/call", "Mcp-Name:   echo\t")...), 200, ""},
		{"Mcp-Name in base64", rawPost("/mcp", call("6", "echo", `{"text":"x"}`), with("Mcp-Method: tools/call", "Mcp-Name: =?base64?ZWNobw==?=")...), 200, ""},
		{"Mcp-Name in bad base64", rawPost("/mcp", call("6", "echo", `{"text":"x"}`), with("Mcp-Method: tools/call", "Mcp-Name: =?base64?ZWNobw?=")...), 400, idErr("6", -32020, "Mcp-Name header does not match the request")},
		{"session id ignored", rawPost("/mcp", list("8"), with("Mcp-Method: tools/list", "Mcp-Session-Id: abc")...), 200, ""},
		{"param header", rawPost("/mcp", call("9", "region_echo", `{"region":"eu","text":"x"}`), with("Mcp-Method: tools/call", "Mcp-Name: region_echo", "Mcp-Param-Region: eu")...), 200, ""},
		{"param header missing", rawPost("/mcp", call("9", "region_echo", `{"region":"eu","text":"x"}`), with("Mcp-Method: tools/call", "Mcp-Name: region_echo")...), 400,
			idErr("9", -32020, "Mcp-Param-Region header is missing or repeated")},
		{"param header differs", rawPost("/mcp", call("9", "region_echo", `{"region":"eu","text":"x"}`), with("Mcp-Method: tools/call", "Mcp-Name: region_echo", "Mcp-Param-Region: us")...), 400,
			idErr("9", -32020, "Mcp-Param-Region header does not match the argument")},
		{"param header base64", rawPost("/mcp", call("9", "region_echo", `{"region":"Hello","text":"x"}`), with("Mcp-Method: tools/call", "Mcp-Name: region_echo", "Mcp-Param-Region: =?base64?SGVsbG8=?=")...), 200, ""},
		{"param header bad base64", rawPost("/mcp", call("9", "region_echo", `{"region":"Hello","text":"x"}`), with("Mcp-Method: tools/call", "Mcp-Name: region_echo", "Mcp-Param-Region: =?base64?SGVs!!!bG8=?=")...), 400,
			idErr("9", -32020, "Mcp-Param-Region header does not match the argument")},
		{"param absent needs no header", rawPost("/mcp", call("9", "region_echo", `{"text":"x"}`), with("Mcp-Method: tools/call", "Mcp-Name: region_echo")...), 200, ""},
		{"unknown tool", rawPost("/mcp", call("10", "nope", `{}`), with("Mcp-Method: tools/call", "Mcp-Name: nope")...), 200, idErr("10", -32602, "Unknown tool: nope")},
		{"no Content-Length", "POST /mcp HTTP/1.1\r\n" + strings.Join(with("Mcp-Method: tools/list"), "\r\n") + "\r\n\r\n", 411, nullErr(-32600, "Length Required: send a Content-Length and no Transfer-Encoding")},
		{"chunked", "POST /mcp HTTP/1.1\r\n" + strings.Join(with("Mcp-Method: tools/list", "Transfer-Encoding: chunked"), "\r\n") + "\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 411, nullErr(-32600, "Length Required: send a Content-Length and no Transfer-Encoding")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := exchangeAt(t, addr, tc.raw)
			assert.Equal(t, tc.status, resp.StatusCode)
			if tc.body != "" {
				assert.Equal(t, tc.body, body)
				assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			}
			if tc.status == 202 {
				assert.Empty(t, body)
			}
			if tc.status == http.StatusMethodNotAllowed {
				assert.Equal(t, "POST", resp.Header.Get("Allow"))
			}
			assert.Empty(t, resp.Header.Get("Mcp-Session-Id"))
		})
	}
}

// The indexed header names match in any case, from request keys and callers' names alike.
func TestIndexOf(t *testing.T) {
	for name, want := range map[string]int{
		"Origin": hOrigin, "origin": hOrigin, "ACCEPT": hAccept,
		"Mcp-Protocol-Version": hVersion, HeaderProtocolVersion: hVersion, "mcp-protocol-version": hVersion,
		"mcp-method": hMethod, "MCP-NAME": hName, "transfer-encoding": hTransferEncoding,
		"Host": -1, "Mcp-Nam": -1, "Mcp-Namf": -1, "Mcp\rName": -1, "Mcp-Name ": -1, "Origi\x0e": -1,
	} {
		assert.Equal(t, want, indexOf(name), name)
		assert.Equal(t, want, indexOf([]byte(name)), name)
	}
}
