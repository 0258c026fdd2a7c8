package streamable

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"math"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"
)

// BenchmarkListener measures a keep-alive tools/call through the whole listener (admission,
// decode, executor hand-off, dispatch, write) over an in-memory connection.
func BenchmarkListener(b *testing.B) {
	ln := serveInmemory(b)
	req := echoRequest()
	b.Run("method=tools-call/impl=fastmcp", func(b *testing.B) { runClients(b, ln.Dial, req) })

	// The ceiling: a bare fasthttp handler answering the same bytes with no MCP work, over the
	// same in-memory connections, so the ratio of the two is what the MCP layer costs.
	reply := []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"hello, world"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"test","version":"1.0.0"}}}}`)
	bare := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		ctx.SetContentType("application/json")
		ctx.SetBody(reply)
	}}
	bln := fasthttputil.NewInmemoryListener()
	go func() { _ = bare.Serve(bln) }()
	defer func() { _ = bare.Shutdown(); _ = bln.Close() }()
	b.Run("method=tools-call/impl=bare-fasthttp", func(b *testing.B) { runClients(b, bln.Dial, req) })
}

// serveInmemory serves the test core (inline execution unless FASTMCP_NOINLINE is set) on
// an in-memory listener until the end of the test or benchmark.
func serveInmemory(tb testing.TB) *fasthttputil.InmemoryListener {
	ln := fasthttputil.NewInmemoryListener()
	serveBench(tb, ln)
	return ln
}

// serveBench serves the test core as serveInmemory does, on ln.
func serveBench(tb testing.TB, ln net.Listener) { serveBenchWith(tb, ln, ListenerConfig{}) }

// serveBenchWith is serveBench with cfg's other fields.
func serveBenchWith(tb testing.TB, ln net.Listener, cfg ListenerConfig) {
	// One keep-alive connection per client for the whole run: past DefaultMaxRequestsPerConn
	// (which a single-CPU run passes) the listener would close it under the client.
	cfg.Addr, cfg.DisableInline, cfg.MaxRequestsPerConn = "127.0.0.1:0", os.Getenv("FASTMCP_NOINLINE") != "", math.MaxInt32
	s, err := New(newCore(tb), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.ServeListener(ln) }()
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
		<-done
	})
}

// echoRequest is a keep-alive 2026-07-28 tools/call of the echo tool, with its mirrored headers.
func echoRequest() []byte {
	body := call("1", "echo", `{"text":"hello, world"}`)
	return []byte("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n" +
		"Mcp-Method: tools/call\r\nMcp-Name: echo\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
}

// runClients sends req on GOMAXPROCS keep-alive connections as fast as they go.
func runClients(b *testing.B, dial func() (net.Conn, error), req []byte) {
	{
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			c, err := dial()
			if err != nil {
				b.Error(err)
				return
			}
			defer c.Close()
			br := bufio.NewReaderSize(c, 4096)
			for pb.Next() {
				if _, err := c.Write(req); err != nil {
					b.Error(err)
					return
				}
				if err := readOne(br); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
}

// readOne reads one HTTP response with a Content-Length body and checks its status.
func readOne(br *bufio.Reader) error {
	n := -1
	status := true
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return err
		}
		if status {
			if !bytes.HasPrefix(line, []byte("HTTP/1.1 200")) {
				return io.ErrUnexpectedEOF
			}
			status = false
			continue
		}
		if len(line) <= 2 {
			break
		}
		if k, v, ok := bytes.Cut(line, []byte(":")); ok && bytes.EqualFold(k, []byte("Content-Length")) {
			n, _ = strconv.Atoi(string(bytes.TrimSpace(v)))
		}
	}
	_, err := br.Discard(n)
	return err
}

// BenchmarkTickPass measures the tick's pass over 10,000 idle connections (listen streams):
// deadlines and inline watches checked for each, nothing due.
func BenchmarkTickPass(b *testing.B) {
	l := &listener{}
	for i := range 10000 {
		l.conns.add(&conn{id: uint64(i + 1), l: l})
	}
	now := time.Now().UnixNano()
	b.ResetTimer()
	for b.Loop() {
		l.onTick(now, int64(watchDelay), nil)
	}
}
