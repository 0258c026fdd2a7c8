package streamable

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// The HTTP stacks serve the same endpoint; tests of shared behaviour run against each: the
// native listener, the net/http adapter, and the RequestHandler mounted in an application's
// fasthttp.Server.
const (
	stackNative   = "native"
	stackNetHTTP  = "nethttp"
	stackFastHTTP = "fasthttp"
)

var bothStacks = []string{stackNative, stackNetHTTP, stackFastHTTP}

// startStack serves core under cfg on a free loopback port with the named stack (the native
// listener, or NewHandler in an httptest server, which is a plain http.Server) and returns
// its host:port and its counters.
func startStack(t testing.TB, stack string, core *fastmcp.Server, cfg ListenerConfig) (addr string, stats func() Stats) {
	t.Helper()
	if stack == stackNative {
		s := startServer(t, core, cfg)
		return hostOf(s), s.Stats
	}
	if stack == stackFastHTTP {
		a, h := startMounted(t, core, cfg.Config)
		return a, h.Stats
	}
	h, err := NewHandler(core, cfg.Config)
	require.NoError(t, err)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.Close()
		require.NoError(t, h.Close(context.Background()))
	})
	return ts.Listener.Addr().String(), h.Stats
}

// dialAt opens a connection to addr, closed at the end of the test.
func dialAt(t testing.TB, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
	return c
}

// exchangeAt sends raw bytes to addr on a new connection and reads one response.
func exchangeAt(t testing.TB, addr, raw string) (*http.Response, string) {
	t.Helper()
	c := dialAt(t, addr)
	_, err := io.WriteString(c, raw)
	require.NoError(t, err)
	return readResponse(t, bufio.NewReader(c))
}

// startMounted serves core with a RequestHandler mounted in a plain fasthttp.Server, set up
// as the package doc asks of a host (HeaderReceived, ErrorHandler, a head buffer of
// MaxHeaderBytes, no WriteTimeout on streams), and returns its host:port.
func startMounted(t testing.TB, core *fastmcp.Server, cfg Config) (string, *RequestHandler) {
	t.Helper()
	h, err := NewRequestHandler(core, cfg)
	require.NoError(t, err)
	maxHead := cfg.MaxHeaderBytes
	if maxHead == 0 {
		maxHead = DefaultMaxHeaderBytes
	}
	fs := &fasthttp.Server{
		Handler: h.Handler(), HeaderReceived: h.HeaderReceived, ErrorHandler: h.ErrorHandler,
		ReadBufferSize: maxHead + 4096, NoDefaultContentType: true, CloseOnShutdown: true,
		Logger: fasthttpLogger{slog.New(slog.DiscardHandler)},
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- fs.Serve(ln) }()
	t.Cleanup(func() {
		require.NoError(t, h.Close(context.Background()))
		require.NoError(t, fs.Shutdown())
		// A Shutdown that ran before Serve took the listener leaves Serve accepting: closing
		// the listener ends it then (a test over within moments of starting the server).
		_ = ln.Close()
		if err := <-done; !errors.Is(err, net.ErrClosed) {
			require.NoError(t, err)
		}
	})
	return ln.Addr().String(), h
}
