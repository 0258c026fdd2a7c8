package bench

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fixtures"
	"github.com/fastmcp-go/fastmcp/internal/wireschema"
	"github.com/fastmcp-go/fastmcp/streamable"
)

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// op is one request the benchmarks send, with its mirrored headers and the reply it expects.
type op struct {
	name, method, tool, body string
	want                     string // a prefix of the reply body
	// legacy marks an initialize-era request: the MCP-Protocol-Version header 2025-11-25
	// only, as a legacy client sends its calls after the handshake (stateless: nothing else
	// of the handshake reaches the call).
	legacy bool
}

var ops = []op{
	{"echo", "tools/call", "echo", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},` + meta + `}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"hello"}]`, false},
	{"discover", "server/discover", "", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`,
		`{"jsonrpc":"2.0","id":1,"result":{`, false},
	{"tools-list", "tools/list", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`,
		`{"jsonrpc":"2.0","id":1,"result":{`, false},
	{"echo-2025-11-25", "tools/call", "echo", legacyEchoBody, legacyEchoReply, true},
}

// The initialize-era echo call and fastmcp's whole reply to it.
const (
	legacyEchoBody  = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`
	legacyEchoReply = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello"}]}}`
)

// bareReply is what fastmcp answers the echo call: the bare server sends it with no MCP work.
const bareReply = `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"hello"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench","version":"1.0.0"}}}}`

// stack is a server on an in-memory listener and a client dialling it.
type stack struct {
	ln     *fasthttputil.InmemoryListener
	client *fasthttp.HostClient
	stop   func()
}

func newClient(ln *fasthttputil.InmemoryListener, conns int) *fasthttp.HostClient {
	return &fasthttp.HostClient{
		Addr:     "127.0.0.1",
		Dial:     func(string) (net.Conn, error) { return ln.Dial() },
		MaxConns: conns,
	}
}

// startFastmcp serves the demo catalog with the native listener.
func startFastmcp(tb testing.TB, conns int) *stack {
	tb.Helper()
	logger := slog.New(slog.DiscardHandler)
	core, err := fastmcp.NewServer(fastmcp.Implementation{Name: "bench", Version: "1.0.0"}, &fastmcp.Config{Logger: logger})
	require.NoError(tb, err)
	fixtures.Demo(core)
	srv, err := streamable.New(core, streamable.ListenerConfig{Addr: "127.0.0.1:0", Config: streamable.Config{Logger: logger}})
	require.NoError(tb, err)
	ln := fasthttputil.NewInmemoryListener()
	served := make(chan error, 1)
	go func() { served <- srv.ServeListener(ln) }()
	return &stack{ln: ln, client: newClient(ln, conns), stop: func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		_ = ln.Close()
		<-served
	}}
}

// startBare serves bareReply to every request: the in-process ceiling of the stack.
func startBare(tb testing.TB, conns int) *stack {
	tb.Helper()
	ln := fasthttputil.NewInmemoryListener()
	srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		ctx.SetContentType("application/json")
		ctx.Response.SetBodyString(bareReply)
	}}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	return &stack{ln: ln, client: newClient(ln, conns), stop: func() {
		_ = srv.Shutdown()
		_ = ln.Close()
		<-served
	}}
}

// request prepares the POST of o with its mirrored headers.
func (o *op) request(req *fasthttp.Request) {
	req.Header.SetMethod(fasthttp.MethodPost)
	req.SetRequestURI("http://127.0.0.1/mcp")
	req.Header.SetContentType("application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.SetBodyString(o.body)
	if o.legacy {
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		return
	}
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", o.method)
	if o.tool != "" {
		req.Header.Set("Mcp-Name", o.tool)
	}
}

// do sends one request and checks the status and the reply's start.
func do(tb testing.TB, c *fasthttp.HostClient, req *fasthttp.Request, resp *fasthttp.Response, want string) {
	if err := c.Do(req, resp); err != nil {
		tb.Fatal(err)
	}
	if resp.StatusCode() != fasthttp.StatusOK || !bytes.HasPrefix(resp.Body(), []byte(want)) {
		tb.Fatalf("status %d, body %s", resp.StatusCode(), resp.Body())
	}
}

// runEndToEnd drives st with o from conns goroutines (one keep-alive connection each) for b.N
// requests in all.
func runEndToEnd(b *testing.B, st *stack, o op, conns int) {
	b.ReportAllocs()
	b.SetBytes(int64(len(o.body)))
	if conns == 1 {
		var req fasthttp.Request
		var resp fasthttp.Response
		o.request(&req)
		for b.Loop() {
			do(b, st.client, &req, &resp, o.want)
		}
		return
	}
	b.SetParallelism(max(1, conns/runtime.GOMAXPROCS(0)))
	b.RunParallel(func(pb *testing.PB) {
		var req fasthttp.Request
		var resp fasthttp.Response
		o.request(&req)
		for pb.Next() {
			do(b, st.client, &req, &resp, o.want)
		}
	})
}

// BenchmarkEndToEnd measures whole requests through the HTTP stack over an in-memory
// listener: fastmcp for each op, and the bare fasthttp ceiling for echo.
func BenchmarkEndToEnd(b *testing.B) {
	for _, conns := range []int{1, 32} {
		for _, o := range ops {
			b.Run("server=fastmcp/op="+o.name+"/conns="+strconv.Itoa(conns), func(b *testing.B) {
				st := startFastmcp(b, conns)
				defer st.stop()
				runEndToEnd(b, st, o, conns)
			})
		}
		b.Run("server=bare/op=echo/conns="+strconv.Itoa(conns), func(b *testing.B) {
			st := startBare(b, conns)
			defer st.stop()
			runEndToEnd(b, st, ops[0], conns)
		})
	}
}

// BenchmarkDispatch measures the core alone on the echo call (decode, route, argument
// decode, handler, encode), with no HTTP: the path to profile for decode work.
func BenchmarkDispatch(b *testing.B) {
	core, err := fastmcp.NewServer(fastmcp.Implementation{Name: "bench", Version: "1.0.0"}, &fastmcp.Config{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(b, err)
	fixtures.Demo(core)
	for _, o := range ops {
		if o.legacy {
			continue // Dispatch serves the modern dialect; the legacy one needs its transport's classification
		}
		b.Run("op="+o.name, func(b *testing.B) {
			msg := []byte(o.body)
			ctx := context.Background()
			b.ReportAllocs()
			b.SetBytes(int64(len(msg)))
			for b.Loop() {
				if reply := core.Dispatch(ctx, msg, nil); !bytes.HasPrefix(reply, []byte(o.want)) {
					b.Fatalf("reply %s", reply)
				}
			}
		})
	}
}

// TestEndToEnd runs each benchmark body once, so `go test` keeps them working; the legacy
// reply must be exactly the revision's CallToolResult, valid against its schema.
func TestEndToEnd(t *testing.T) {
	for _, o := range ops {
		st := startFastmcp(t, 2)
		var req fasthttp.Request
		var resp fasthttp.Response
		o.request(&req)
		do(t, st.client, &req, &resp, o.want)
		if o.legacy {
			require.Equal(t, legacyEchoReply, string(resp.Body()))
			wireschema.RequireValidRev(t, "2025-11-25", "JSONRPCResultResponse", resp.Body())
			wireschema.RequireValidRev(t, "2025-11-25", "CallToolResult", []byte(legacyEchoReply[len(`{"jsonrpc":"2.0","id":1,"result":`):len(legacyEchoReply)-1]))
		}
		st.stop()
	}
	st := startBare(t, 2)
	var req fasthttp.Request
	var resp fasthttp.Response
	ops[0].request(&req)
	do(t, st.client, &req, &resp, ops[0].want)
	st.stop()
}
