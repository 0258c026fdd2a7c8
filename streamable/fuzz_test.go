package streamable

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/fastmcp-go/fastmcp/decode"
)

// mapHeaders is a Headers for tests: "Name: value" lines.
type mapHeaders map[string][][]byte

func (m mapHeaders) Values(name string) [][]byte { return m[http.CanonicalHeaderKey(name)] }

func parseHeaderLines(s string) mapHeaders {
	h := mapHeaders{}
	for _, line := range strings.Split(s, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k = http.CanonicalHeaderKey(strings.TrimSpace(k))
		h[k] = append(h[k], []byte(strings.TrimSpace(v)))
	}
	return h
}

// FuzzAdmission drives arbitrary heads and bodies through the host-neutral admission, both
// eras: it never panics, every refusal has a 4xx/5xx status (or 202 for notifications) and a
// well-formed JSON-RPC body, and whatever it admits is a request with a readable id, in a
// dialect the server serves.
func FuzzAdmission(f *testing.F) {
	std := "Host: 127.0.0.1:8080\nContent-Type: application/json\nAccept: application/json, text/event-stream\nMCP-Protocol-Version: 2026-07-28\n"
	f.Add("POST", "/mcp", std+"Mcp-Method: tools/list", list("1"))
	f.Add("POST", "/mcp", std+"Mcp-Method: tools/call\nMcp-Name: echo", call("1", "echo", `{"text":"x"}`))
	f.Add("POST", "/mcp", std+"Mcp-Method: tools/call\nMcp-Name: region_echo\nMcp-Param-Region: =?base64?ZXU=?=", call("1", "region_echo", `{"region":"eu","text":"x"}`))
	f.Add("GET", "/mcp", std, "")
	f.Add("POST", "/mcp", std+"Origin: http://user@evil", "{")
	f.Add("POST", "/mcp", "Host: evil\nContent-Type: text/plain", "[]")
	f.Add("POST", "/mcp", std, `{"jsonrpc":"2.0","method":"notifications/cancelled"}`)
	legacy := "Host: 127.0.0.1:8080\nContent-Type: application/json\nAccept: application/json, text/event-stream\n"
	f.Add("POST", "/mcp", legacy, initializeBody("1", "2025-11-25"))
	f.Add("POST", "/mcp", legacy+"MCP-Protocol-Version: 2025-06-18", legacyCall("2", "echo", `{"text":"x"}`))
	f.Add("POST", "/mcp", legacy+"MCP-Protocol-Version: 2025-11-25\nMCP-Protocol-Version: 2025-06-18", `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	f.Add("POST", "/mcp", legacy+"MCP-Protocol-Version: 1999-01-01", `{"jsonrpc":"2.0","id":"x","method":"ping"}`)
	f.Add("POST", "/mcp", legacy, `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)
	f.Add("POST", "/mcp", legacy+"MCP-Protocol-Version: 2025-11-25", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x"}}`)
	f.Add("POST", "/mcp", legacy+"MCP-Protocol-Version: 2025-11-25", `{"jsonrpc":"2.0","id":"fastmcp-x","result":{"action":"accept"}}`)
	ep, err := newEndpoint(newCore(f), Config{}, true)
	if err != nil {
		f.Fatal(err)
	}
	defer ep.exec.Close(f.Context())
	f.Fuzz(func(t *testing.T, method, path, headers, body string) {
		h := parseHeaderLines(headers)
		var host []byte
		if hs := h.Values("Host"); len(hs) > 0 {
			host = hs[0]
		}
		if e := ep.admitHead([]byte(method), []byte(path), h, host); e != nil {
			checkRefusal(t, e, e.appendBody(nil, nil))
			return
		}
		j := acquireJob(ep)
		defer j.release()
		j.body = append(j.body[:0], body...)
		e, reply := ep.admitBody(j, h)
		switch {
		case reply != nil:
			checkRefusal(t, e, reply)
		case e != nil:
			if e.status == http.StatusAccepted {
				if k := j.msg.Kind(); k != decode.KindNotification && k != decode.KindResponse {
					t.Fatalf("202 for a %v", k)
				}
				return
			}
			checkRefusal(t, e, e.appendBody(nil, j.msg.ID().Raw()))
		default:
			if j.msg.Kind() != decode.KindRequest || !j.msg.IDEchoable() {
				t.Fatalf("admitted a %v (id echoable %v)", j.msg.Kind(), j.msg.IDEchoable())
			}
			if !ep.core.Serves(j.state.Dialect) {
				t.Fatalf("admitted in dialect %v", j.state.Dialect)
			}
		}
	})
}

func checkRefusal(t *testing.T, e *httpError, body []byte) {
	t.Helper()
	if e.status < 400 && e.status != http.StatusAccepted && e.status != http.StatusNoContent {
		t.Fatalf("refusal with status %d", e.status)
	}
	if e.noBody {
		return
	}
	var v struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &v); err != nil || v.JSONRPC != "2.0" || v.Error == nil || v.Error.Message == "" || v.ID == nil {
		t.Fatalf("malformed refusal body %q: %v", body, err)
	}
	if bytes.Contains(body, []byte("\n")) {
		t.Fatalf("refusal body spans lines: %q", body)
	}
}
