package streamable

import (
	"bufio"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serveHTTP serves hs on a free loopback port until the end of the test (see serveHTTPOn).
func serveHTTP(t testing.TB, hs *http.Server) (addr string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	return serveHTTPOn(t, hs, ln)
}

// serveHTTPOn serves hs on ln until the end of the test, which waits for every connection's
// goroutine (net/http lingers up to 500 ms on one it closes with unread input).
func serveHTTPOn(t testing.TB, hs *http.Server, ln net.Listener) (addr string) {
	t.Helper()
	var conns sync.WaitGroup
	hs.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			conns.Add(1)
		case http.StateClosed, http.StateHijacked:
			conns.Done()
		}
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	t.Cleanup(func() {
		require.NoError(t, hs.Close())
		assert.ErrorIs(t, <-served, http.ErrServerClosed)
		conns.Wait()
	})
	return ln.Addr().String()
}

// wrappingListener hands out each connection inside a struct that embeds it, as
// golang.org/x/net/netutil.LimitListener and fastmcp-bench's MaxConnections listener do: the
// wrapper is neither a syscall.Conn nor has a NetConn method.
type wrappingListener struct{ net.Listener }

type wrappedConn struct {
	net.Conn
	closeOnce sync.Once
	closeErr  error
}

func (l wrappingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &wrappedConn{Conn: c}, nil
}

func (c *wrappedConn) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.Conn.Close() })
	return c.closeErr
}

// disconnectListeners are the listeners the disconnect tests serve on: the bare TCP listener,
// one that wraps its connections, and TLS over that.
var disconnectListeners = []string{"bare", "wrapping", "tls over wrapping"}

// listenFor returns a loopback listener of the named kind and a dial function for it.
func listenFor(t *testing.T, kind string) (net.Listener, func(addr string) net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	switch kind {
	case "bare":
		return ln, func(addr string) net.Conn { return dialAt(t, addr) }
	case "wrapping":
		return wrappingListener{ln}, func(addr string) net.Conn { return dialAt(t, addr) }
	}
	ca := newTestCA(t)
	_, _, pair := ca.issue(t, 2)
	tln := tls.NewListener(wrappingListener{ln}, &tls.Config{Certificates: []tls.Certificate{pair}})
	return tln, func(addr string) net.Conn {
		c := tls.Client(dialAt(t, addr), &tls.Config{RootCAs: ca.pool(), ServerName: "127.0.0.1"})
		require.NoError(t, c.Handshake())
		return c
	}
}

// TestNetHTTPDisconnectCancels closes the client's connection (or its sending side) while its
// tool runs: the tool's context is cancelled, also when the client sent further bytes first
// (a stray byte, a whole pipelined request), at which net/http's own watch of the connection
// stops, and also when the server's listener wraps its connections. A half-close is a
// disconnect, as net/http treats it when nothing else was sent (over TLS, close_notify).
func TestNetHTTPDisconnectCancels(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the connection probe needs POLLRDHUP (Linux); elsewhere net/http's watch stops at the first further byte")
	}
	for _, kind := range disconnectListeners {
		for _, tc := range []struct {
			name      string
			after     func(addr string) string // sent once the tool runs, before the close
			halfClose bool                     // CloseWrite instead of Close
		}{
			{name: "plain close"},
			{name: "one byte, then close", after: func(string) string { return "P" }},
			{name: "a pipelined request, then close", after: pipelinedList},
			{name: "half-close", halfClose: true},
			{name: "one byte, then half-close", after: func(string) string { return "P" }, halfClose: true},
			{name: "a pipelined request, then half-close", after: pipelinedList, halfClose: true},
		} {
			if tc.halfClose && tc.after != nil && kind == "tls over wrapping" {
				// Not a case: a TLS CloseWrite sends close_notify and leaves the TCP connection
				// open, so behind further bytes no probe of the socket can see it (package doc).
				continue
			}
			t.Run(kind+"/"+tc.name, func(t *testing.T) {
				core := newCore(t)
				b := newBlocker(t, core)
				h, err := NewHandler(core, Config{})
				require.NoError(t, err)
				t.Cleanup(func() { require.NoError(t, h.Close(context.Background())) })
				ln, dial := listenFor(t, kind)
				addr := serveHTTPOn(t, NewHTTPServer(h, ListenerConfig{Addr: "127.0.0.1:0"}), ln)
				t.Cleanup(func() { close(b.release) }) // first: a tool left running ends

				c := dial(addr)
				_, err = io.WriteString(c, postTo(addr, call("1", "block", `{}`), callHeaders("block")...))
				require.NoError(t, err)
				<-b.started
				if tc.after != nil {
					_, err = io.WriteString(c, tc.after(addr))
					require.NoError(t, err)
				}
				if tc.halfClose {
					require.NoError(t, c.(interface{ CloseWrite() error }).CloseWrite())
				} else {
					require.NoError(t, c.Close())
				}
				select {
				case err := <-b.ended:
					assert.ErrorIs(t, err, context.Canceled)
				case <-time.After(5 * time.Second):
					t.Fatal("the tool was not cancelled")
				}
				require.Eventually(t, func() bool { return h.Stats().Disconnects == 1 }, 5*time.Second, time.Millisecond)
			})
		}
	}
}

// pipelinedList is a whole tools/list request, pipelined behind the running one.
func pipelinedList(addr string) string { return postTo(addr, list("2"), "Mcp-Method: tools/list") }

// probeCountingListener hands out connections whose raw connection signals each Control call,
// which is how the probe asks the kernel about the socket.
type probeCountingListener struct {
	net.Listener
	probes chan struct{}
}

type probeCountingConn struct {
	net.Conn
	probes chan struct{}
}

type probeCountingRaw struct {
	syscall.RawConn
	probes chan struct{}
}

func (l probeCountingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &probeCountingConn{c, l.probes}, nil
}

func (c *probeCountingConn) SyscallConn() (syscall.RawConn, error) {
	raw, err := c.Conn.(syscall.Conn).SyscallConn()
	if err != nil {
		return nil, err
	}
	return probeCountingRaw{raw, c.probes}, nil
}

func (r probeCountingRaw) Control(f func(fd uintptr)) error {
	err := r.RawConn.Control(f)
	select {
	case r.probes <- struct{}{}:
	default:
	}
	return err
}

// A client that pipelines a second request behind a running one and keeps its connection open
// is not taken for gone by the probe: after several probes the first request still runs, and
// both are answered in order once it completes.
func TestNetHTTPProbeKeepsPipelinedClient(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the connection probe needs POLLRDHUP (Linux)")
	}
	core := newCore(t)
	b := newBlocker(t, core)
	h, err := NewHandler(core, Config{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, h.Close(context.Background())) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	probes := make(chan struct{})
	addr := serveHTTPOn(t, NewHTTPServer(h, ListenerConfig{Addr: "127.0.0.1:0"}), probeCountingListener{ln, probes})

	c := dialAt(t, addr)
	_, err = io.WriteString(c, postTo(addr, call("1", "block", `{}`), callHeaders("block")...))
	require.NoError(t, err)
	<-b.started
	_, err = io.WriteString(c, pipelinedList(addr))
	require.NoError(t, err)
	for range 3 { // the first may have begun before the pipelined bytes arrived
		select {
		case <-probes:
		case <-time.After(5 * time.Second):
			t.Fatal("the connection was not probed")
		}
	}
	select {
	case err := <-b.ended:
		t.Fatalf("the tool ended while its client was there: %v", err)
	default:
	}
	close(b.release)
	br := bufio.NewReader(c)
	resp, body := readResponse(t, br)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"released"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"test","version":"1.0.0"}}}}`, body)
	resp, body = readResponse(t, br)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, body, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","tools":[{"name":"block",`)
	assert.Zero(t, h.Stats().Disconnects)
}

// NewHTTPServer applies the Config's connection-level settings; a head past MaxHeaderBytes
// gets the handler's 431, one past net/http's own bound (MaxHeaderBytes plus 4 KiB) the
// server's.
func TestNewHTTPServer(t *testing.T) {
	h, err := NewHandler(newCore(t), Config{MaxHeaderBytes: 1024})
	require.NoError(t, err)
	hs := NewHTTPServer(h, ListenerConfig{Addr: "127.0.0.1:0", HeadTimeout: 3 * time.Second, IdleTimeout: 7 * time.Second})
	assert.Equal(t, "127.0.0.1:0", hs.Addr)
	assert.Equal(t, 3*time.Second, hs.ReadHeaderTimeout)
	assert.Equal(t, 7*time.Second, hs.IdleTimeout)
	assert.Equal(t, 1024, hs.MaxHeaderBytes)
	assert.Zero(t, hs.ReadTimeout, "a ReadTimeout would cut listen streams")
	assert.Zero(t, hs.WriteTimeout, "a WriteTimeout would cut listen streams")
	assert.NotNil(t, hs.ConnContext)
	t.Cleanup(func() { require.NoError(t, h.Close(context.Background())) })
	addr := serveHTTP(t, hs)
	resp, body := exchangeAt(t, addr, postTo(addr, list("1"), "Mcp-Method: tools/list", "X-Big: "+strings.Repeat("h", 2000)))
	assert.Equal(t, http.StatusRequestHeaderFieldsTooLarge, resp.StatusCode)
	assert.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Request header fields too large"}}`, body)
	resp, body = exchangeAt(t, addr, postTo(addr, list("1"), "Mcp-Method: tools/list", "X-Big: "+strings.Repeat("h", 8000)))
	assert.Equal(t, http.StatusRequestHeaderFieldsTooLarge, resp.StatusCode)
	assert.Equal(t, "431 Request Header Fields Too Large", body)
}

// socketOf finds the socket under the wrappers a listener or TLS puts around it, and nothing
// under a connection that has none.
func TestSocketOf(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	tcp := dialAt(t, ln.Addr().String()).(*net.TCPConn)
	type valueWrapper struct{ net.Conn }
	pipe, other := net.Pipe()
	defer pipe.Close()
	defer other.Close()
	for _, tc := range []struct {
		name string
		conn net.Conn
		want syscall.Conn
	}{
		{"the socket itself", tcp, tcp},
		{"an embedding wrapper", &wrappedConn{Conn: tcp}, tcp},
		{"two wrappers and TLS", tls.Server(&wrappedConn{Conn: valueWrapper{tcp}}, &tls.Config{}), tcp},
		{"an embedding wrapper around nothing", &wrappedConn{}, nil},
		{"a nil wrapper", (*wrappedConn)(nil), nil},
		{"a pipe", pipe, nil},
		{"a pipe in a wrapper", valueWrapper{pipe}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, socketOf(tc.conn))
		})
	}
	p := &peerProbe{conn: pipe}
	assert.False(t, p.Gone(), "a connection with no socket is never reported gone")
	assert.True(t, p.noSocket)
}
