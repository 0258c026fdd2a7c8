package streamable

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// getMCP is a GET of the endpoint: refused with 405 before its body is looked at.
func getMCP(s *Server) string {
	return "GET /mcp HTTP/1.1\r\nHost: " + hostOf(s) + "\r\n\r\n"
}

// What the head of one request tells its handler stays with that request: a GET refused
// before the body check leaves nothing that turns the next request's 413 into a 411.
func TestRefusedHeadLeavesNoStateOnItsConnection(t *testing.T) {
	s := startServer(t, newCore(t), ListenerConfig{Config: Config{MaxBodyBytes: 250}})
	c := dial(t, s)
	br := bufio.NewReader(c)
	_, err := io.WriteString(c, getMCP(s))
	require.NoError(t, err)
	resp, _ := readResponse(t, br)
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)

	// A Content-Length over the limit, refused before the body is sent.
	_, err = io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: "+hostOf(s)+"\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: 300\r\n\r\n")
	require.NoError(t, err)
	resp, body := readResponse(t, br)
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	assert.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Request body exceeds the maximum size"}}`, body)
}

// Nor does it reach a request on another connection that fasthttp serves with the same
// request context (its contexts are pooled across connections).
func TestRefusedHeadLeavesNoStateForOtherConnections(t *testing.T) {
	s := startServer(t, newCore(t), ListenerConfig{})
	empty := post(s, "", "Mcp-Method: tools/list")
	for i := range 20 {
		a := dial(t, s)
		_, err := io.WriteString(a, getMCP(s))
		require.NoError(t, err)
		resp, _ := readResponse(t, bufio.NewReader(a))
		require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
		a.Close()
		// fasthttp returns a's request context to its pool once a's connection has ended.
		require.Eventually(t, func() bool { return s.Stats().OpenConnections == 0 }, 5*time.Second, time.Millisecond)

		resp, body := exchange(t, s, empty)
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "try %d", i)
		assert.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: empty message"}}`, body, "try %d", i)
	}
}

// refuse sends raw on n connections open at once (so fasthttp serves them with n request
// contexts), reads each response, and closes them, client first.
func refuse(t *testing.T, s *Server, raw string, status, n int) {
	t.Helper()
	conns := make([]net.Conn, n)
	for i := range conns {
		c, err := net.Dial("tcp", hostOf(s))
		require.NoError(t, err)
		require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
		_, err = io.WriteString(c, raw)
		require.NoError(t, err)
		conns[i] = c
	}
	for i, c := range conns {
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		require.NoError(t, err, "request %d", i)
		_ = resp.Body.Close()
		require.Equal(t, status, resp.StatusCode, "request %d", i)
		// No TIME_WAIT left behind: thousands of connections in a test must not use up the
		// ephemeral ports of the -count runs that follow.
		_ = c.(*net.TCPConn).SetLinger(0)
		c.Close()
	}
}

// heapAfterGC returns the live heap.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// Requests refused before the body check (GET, a wrong path, a body over the limit with a
// gate, a gate's refusal of a request whose megabyte of body never comes) leave nothing behind: the heap and the goroutine count stay flat over thousands of
// them.
func TestRefusedRequestsDoNotGrowTheHeap(t *testing.T) {
	gate := func(context.Context, GateRequest) (GateDecision, error) {
		return GateDecision{Identity: &fastmcp.Identity{Principal: "p"}}, nil
	}
	tooLarge := func(s *Server) string {
		return "POST /mcp HTTP/1.1\r\nHost: " + hostOf(s) + "\r\nContent-Type: application/json\r\nContent-Length: 300\r\n\r\n"
	}
	wrongPath := func(s *Server) string { return "POST /other HTTP/1.1\r\nHost: " + hostOf(s) + "\r\n\r\n" } // and no Content-Length
	refuseAll := func(context.Context, GateRequest) (GateDecision, error) {
		return GateDecision{Response: &GateResponse{Status: http.StatusUnauthorized, Body: []byte("no token")}}, nil
	}
	unauthenticated := func(s *Server) string { // a megabyte declared, none sent
		return "POST /mcp HTTP/1.1\r\nHost: " + hostOf(s) + "\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n"
	}
	for _, tc := range []struct {
		name   string
		cfg    Config
		raw    func(*Server) string
		status int
	}{
		{"GET", Config{}, getMCP, http.StatusMethodNotAllowed},
		{"wrong path", Config{}, wrongPath, http.StatusNotFound},
		{"gated body over the limit", Config{MaxBodyBytes: 250, RequestGate: gate}, tooLarge, http.StatusRequestEntityTooLarge},
		{"refused by the gate, body withheld", Config{RequestGate: refuseAll}, unauthenticated, http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Not startServer: its cleanup would keep this server reachable, with whatever it
			// leaked, while the next case measures.
			s, err := New(newCore(t), ListenerConfig{Config: tc.cfg, Addr: "127.0.0.1:0"})
			require.NoError(t, err)
			// fasthttp's worker pool keeps the server reachable from a goroutine that
			// sleeps this long between passes, also after the server stopped.
			s.fs.MaxIdleWorkerDuration = 20 * time.Millisecond
			require.NoError(t, s.Listen())
			served := make(chan error, 1)
			go func() { served <- s.Serve() }()
			defer func() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				assert.NoError(t, s.Shutdown(ctx))
				assert.ErrorIs(t, <-served, ErrServerClosed)
			}()
			raw := tc.raw(s)
			const batch, n = 100, 3000
			refuse(t, s, raw, tc.status, batch) // warm the pools, start fasthttp's workers
			require.Eventually(t, func() bool { return s.Stats().OpenConnections == 0 }, 5*time.Second, time.Millisecond)
			heap, goroutines := heapAfterGC(), runtime.NumGoroutine()

			for i := 0; i < n; i += batch {
				refuse(t, s, raw, tc.status, batch)
				require.Eventually(t, func() bool { return s.Stats().OpenConnections == 0 }, 5*time.Second, time.Millisecond)
				// Two collections empty fasthttp's context pool: a context that something
				// still references stays on the heap, and the next batch allocates new ones.
				runtime.GC()
				runtime.GC()
			}
			// fasthttp's idle workers (at most one per connection of a batch) come and go.
			require.Eventually(t, func() bool { return runtime.NumGoroutine() <= goroutines+batch }, 5*time.Second, time.Millisecond,
				"goroutines: %d before, %d after", goroutines, runtime.NumGoroutine())
			grown := int64(heapAfterGC()) - int64(heap)
			t.Logf("heap: %d before, grown by %d bytes over %d requests", heap, grown, n)
			assert.Less(t, grown, int64(128<<10), "the heap grew by "+strconv.FormatInt(grown, 10)+" bytes")
		})
	}
}

// The gate's decision reaches the handler of the request it was made for, and no other: a
// refused request on one connection and an admitted one on another each get their own. The
// refused requests declare no body, so that their connection stays open (a refusal closes a
// connection whose body it did not read).
func TestGateDecisionPerRequest(t *testing.T) {
	core := newCore(t)
	fastmcp.AddTool(core, fastmcp.Tool{Name: "whoami", Description: "Who am I"}, func(ctx context.Context, _ *fastmcp.Request, _ struct{}) (fastmcp.ToolResult, error) {
		if id := fastmcp.IdentityFrom(ctx); id != nil {
			return fastmcp.ToolResult{Text: "principal " + id.Principal}, nil
		}
		return fastmcp.ToolResult{Text: "anonymous"}, nil
	})
	gate := func(_ context.Context, r GateRequest) (GateDecision, error) {
		auth := r.Header.Values("Authorization")
		if len(auth) != 1 || !strings.HasPrefix(string(auth[0]), "Bearer ") {
			return GateDecision{Response: &GateResponse{Status: http.StatusUnauthorized, Body: []byte("no token")}}, nil
		}
		return GateDecision{Identity: &fastmcp.Identity{Principal: strings.TrimPrefix(string(auth[0]), "Bearer ")}}, nil
	}
	s := startServer(t, core, ListenerConfig{Config: Config{RequestGate: gate}})
	whoami := func(extra ...string) string {
		body := call("1", "whoami", `{}`)
		if len(extra) == 0 {
			body = "" // refused: no body to skip
		}
		return post(s, body, append(callHeaders("whoami"), extra...)...)
	}
	a, b := dial(t, s), dial(t, s)
	ra, rb := bufio.NewReader(a), bufio.NewReader(b)
	for i := range 3 {
		_, err := io.WriteString(a, whoami("Authorization: Bearer alice"))
		require.NoError(t, err)
		_, err = io.WriteString(b, whoami())
		require.NoError(t, err)
		resp, body := readResponse(t, ra)
		assert.Equal(t, http.StatusOK, resp.StatusCode, "try %d", i)
		assert.Contains(t, body, `"text":"principal alice"`, "try %d", i)
		resp, body = readResponse(t, rb)
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "try %d", i)
		assert.Equal(t, "no token", body, "try %d", i)
	}
	// On one connection, an admitted request after a refused one, and the reverse.
	for _, step := range []struct {
		extra  []string
		status int
		text   string
	}{{nil, 401, "no token"}, {[]string{"Authorization: Bearer bob"}, 200, `"text":"principal bob"`}, {nil, 401, "no token"}} {
		_, err := io.WriteString(a, whoami(step.extra...))
		require.NoError(t, err)
		resp, body := readResponse(t, ra)
		assert.Equal(t, step.status, resp.StatusCode)
		assert.Contains(t, body, step.text)
	}
}

// fasthttp calls HeaderReceived with the header of the RequestCtx that its handler (or error
// handler) then gets, and that RequestCtx's connection is the listener's: connOfHeader's
// premise, checked on keep-alive requests over two connections, for the handler and for the
// error handler.
func TestHeaderReceivedLeadsToItsConn(t *testing.T) {
	s, err := New(newCore(t), ListenerConfig{Addr: "127.0.0.1:0", Config: Config{MaxBodyBytes: 250}})
	require.NoError(t, err)
	var last atomic.Pointer[fasthttp.RequestHeader]
	var checked, wrong atomic.Int32
	check := func(ctx *fasthttp.RequestCtx) {
		checked.Add(1)
		h := last.Swap(nil)
		if h != &ctx.Request.Header || ctxOfHeader(h) != ctx || ctxOfHeader(h).Conn() != ctx.Conn() {
			wrong.Add(1)
		}
		if _, ok := ctx.Conn().(*conn); !ok {
			wrong.Add(1)
		}
	}
	headerReceived, handler, handleError := s.fs.HeaderReceived, s.fs.Handler, s.fs.ErrorHandler
	s.fs.HeaderReceived = func(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
		last.Store(h)
		return headerReceived(h)
	}
	s.fs.Handler = func(ctx *fasthttp.RequestCtx) { check(ctx); handler(ctx) }
	s.fs.ErrorHandler = func(ctx *fasthttp.RequestCtx, err error) { check(ctx); handleError(ctx, err) }
	require.NoError(t, s.Listen())
	served := make(chan error, 1)
	go func() { served <- s.Serve() }()
	defer func() {
		require.NoError(t, s.Shutdown(context.Background()))
		require.ErrorIs(t, <-served, ErrServerClosed)
	}()

	a, b := dial(t, s), dial(t, s)
	ra, rb := bufio.NewReader(a), bufio.NewReader(b)
	for i := range 4 {
		for _, side := range []struct {
			c  net.Conn
			br *bufio.Reader
		}{{a, ra}, {b, rb}} {
			_, err := io.WriteString(side.c, post(s, list(strconv.Itoa(i)), "Mcp-Method: tools/list"))
			require.NoError(t, err)
			resp, _ := readResponse(t, side.br)
			require.Equal(t, http.StatusOK, resp.StatusCode)
		}
	}
	_, err = io.WriteString(a, "POST /mcp HTTP/1.1\r\nHost: "+hostOf(s)+"\r\nContent-Length: 300\r\n\r\n")
	require.NoError(t, err)
	resp, _ := readResponse(t, ra)
	require.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	assert.Equal(t, int32(9), checked.Load())
	assert.Zero(t, wrong.Load())
}
