package fastmcp

import (
	"context"
	"testing"

	"github.com/fastmcp-go/fastmcp/decode"
)

type benchEchoArgs struct {
	Text string `json:"text"`
}

func newBenchServer(tb testing.TB) *Server {
	s := newTestServer(tb, nil)
	AddTool(s, Tool{Name: "echo", Description: "Echo the text"}, func(_ context.Context, _ *Request, in benchEchoArgs) (ToolResult, error) {
		return ToolResult{Text: in.Text}, nil
	})
	return s
}

// benchMessages are the 2026-07-28 requests the dispatch benchmarks serve.
var benchMessages = []struct{ method, msg string }{
	{"tools-call", `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1.0.0"}},"name":"echo","arguments":{"text":"hello, world"}}}`},
	{"tools-list", `{"jsonrpc":"2.0","id":43,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`},
	{"discover", `{"jsonrpc":"2.0","id":44,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`},
}

// dispatchOnce decodes msg into m and serves it into dst, as a transport does.
func dispatchOnce(tb testing.TB, s *Server, m *decode.Message, msg, dst []byte) []byte {
	if err := s.decoder.Decode(m, msg); err != nil {
		tb.Fatal(err)
	}
	r := s.testHandle(context.Background(), m, nil, dst[:0])
	if r.Err != nil || r.Body == nil {
		tb.Fatalf("reply %s", r.Body)
	}
	return r.Body
}

// BenchmarkDispatch measures in-process dispatch: decode plus Handle of one message into a
// reused buffer, as transports do (the transport's own work excluded).
func BenchmarkDispatch(b *testing.B) {
	s := newBenchServer(b)
	for _, bm := range benchMessages {
		b.Run("method="+bm.method, func(b *testing.B) {
			var m decode.Message
			msg := []byte(bm.msg)
			dst := make([]byte, 0, 1024)
			b.ReportAllocs()
			b.SetBytes(int64(len(msg)))
			for b.Loop() {
				dst = dispatchOnce(b, s, &m, msg, dst)
			}
		})
	}
}

// TestBenchmarkDispatch checks the benchmark bodies on every test run.
func TestBenchmarkDispatch(t *testing.T) {
	s := newBenchServer(t)
	var m decode.Message
	for _, bm := range benchMessages {
		out := dispatchOnce(t, s, &m, []byte(bm.msg), nil)
		if len(out) == 0 {
			t.Fatal(bm.method)
		}
	}
}

// BenchmarkHandle measures Handle alone: each message is decoded once, outside the loop, so
// the decoder's cost does not blur the core's.
func BenchmarkHandle(b *testing.B) {
	s := newBenchServer(b)
	for _, bm := range benchMessages {
		b.Run("method="+bm.method, func(b *testing.B) {
			var m decode.Message
			if err := s.decoder.Decode(&m, []byte(bm.msg)); err != nil {
				b.Fatal(err)
			}
			dst := make([]byte, 0, 1024)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				r := s.testHandle(ctx, &m, nil, dst[:0])
				if r.Err != nil || r.Body == nil {
					b.Fatalf("reply %s", r.Body)
				}
				dst = r.Body
			}
		})
	}
}

// legacyBenchMessages are benchMessages' tools/call and tools/list in 2025-11-25, as a
// stateless HTTP transport hands them to the core (transport.Endpoint.Serve) (the version in its header).
var legacyBenchMessages = []struct{ method, msg string }{
	{"tools-call", `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, world"}}}`},
	{"tools-list", `{"jsonrpc":"2.0","id":43,"method":"tools/list"}`},
}

// handleLegacyOnce decodes msg into m and serves it in 2025-11-25 into dst.
func handleLegacyOnce(tb testing.TB, s *Server, c *ConnState, m *decode.Message, msg, dst []byte) []byte {
	if err := s.decoder.Decode(m, msg); err != nil {
		tb.Fatal(err)
	}
	r := s.testHandleLegacy(context.Background(), m, c, nil, dst[:0])
	if r.Err != nil || r.Body == nil {
		tb.Fatalf("reply %s", r.Body)
	}
	return r.Body
}

// BenchmarkDispatchLegacy is BenchmarkDispatch for the initialize-era path (decode plus
// the core (transport.Endpoint.Serve)), beside which the 2026-07-28 figures compare.
func BenchmarkDispatchLegacy(b *testing.B) {
	s := newBenchServer(b)
	c := &ConnState{Dialect: Legacy20251125, LogLevel: s.legacyLogLevel()}
	for _, bm := range legacyBenchMessages {
		b.Run("method="+bm.method, func(b *testing.B) {
			var m decode.Message
			msg := []byte(bm.msg)
			dst := make([]byte, 0, 1024)
			b.ReportAllocs()
			b.SetBytes(int64(len(msg)))
			for b.Loop() {
				dst = handleLegacyOnce(b, s, c, &m, msg, dst)
			}
		})
	}
}
