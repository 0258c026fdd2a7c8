package fastmcp

import (
	"testing"

	"github.com/fastmcp-go/fastmcp/decode"
)

// clientMetaCalls are the tools/call messages BenchmarkClientMeta serves: the clientInfo and
// clientCapabilities of a minimal client, and of one that sends everything it may.
var clientMetaCalls = []struct{ name, msg string }{
	{"minimal", benchMessages[0].msg},
	{"rich", `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true},"sampling":{"context":{},"tools":{}},"elicitation":{"form":{},"url":{}},"extensions":{"io.example/ui":{}}},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"example-client","title":"Example Client","version":"1.4.2","description":"An MCP client","websiteUrl":"https://example.com/client",` +
		`"icons":[{"src":"https://example.com/icon.png","mimeType":"image/png","sizes":["48x48"]}]}},"name":"echo","arguments":{"text":"hello, world"}}}`},
}

// BenchmarkClientMeta measures what the memo of clientInfo and clientCapabilities buys (see
// validMemo): Dispatch of the same tools/call with the memo (memo=on) and with every check
// run (memo=off), in one run.
func BenchmarkClientMeta(b *testing.B) {
	s := newBenchServer(b)
	for _, c := range clientMetaCalls {
		for _, memo := range []string{"on", "off"} {
			b.Run("meta="+c.name+"/memo="+memo, func(b *testing.B) {
				validMemosOff = memo == "off"
				defer func() { validMemosOff = false }()
				var m decode.Message
				msg := []byte(c.msg)
				dst := make([]byte, 0, 1024)
				b.ReportAllocs()
				for b.Loop() {
					dst = dispatchOnce(b, s, &m, msg, dst)
				}
			})
		}
	}
}

// TestClientMetaCalls checks that the messages of BenchmarkClientMeta are served, with the
// memo and without.
func TestClientMetaCalls(t *testing.T) {
	s := newBenchServer(t)
	for _, c := range clientMetaCalls {
		var m decode.Message
		on := string(dispatchOnce(t, s, &m, []byte(c.msg), nil))
		validMemosOff = true
		off := string(dispatchOnce(t, s, &m, []byte(c.msg), nil))
		validMemosOff = false
		if on != off || on == "" {
			t.Errorf("%s: memo on %s, off %s", c.name, on, off)
		}
	}
}
