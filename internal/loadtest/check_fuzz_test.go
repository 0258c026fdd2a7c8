package loadtest

import (
	"encoding/json"
	"testing"
)

// FuzzCheckResponse: the checker reads whatever a server sends; it never panics, and a reply
// it accepts is valid JSON with the id and the echoed text where it says they are.
func FuzzCheckResponse(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello"}]}}`,
		`{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[{"type":"text","text":"hello"}],"_meta":{}}}`,
		`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25"}}`,
		`[{"a":[1,2,{"b":null}]}]`, `{"jsonrpc":"2.0","id":7,"result":{"content":[{"text":"\"he\\u006clo"}]}}`, `{`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		text := []byte(`"hello"`)
		var k known
		for range 2 { // the second pass goes through the remembered reply
			if k.check(body, []byte("7"), text) != "" {
				return
			}
		}
		if !json.Valid(body) {
			t.Fatalf("accepted invalid JSON %q", body)
		}
		if r, err := parseReply(body); err != nil || string(r.id) != "7" || string(r.jsonrpc) != `"2.0"` {
			t.Fatalf("accepted %q: id %s", body, r.id)
		}
	})
}
