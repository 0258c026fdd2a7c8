package streamable

import (
	"context"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serveHTTP serves hs on a free loopback port until the end of the test, which waits for
// every connection's goroutine (net/http lingers up to 500 ms on one it closes with unread
// input).
func serveHTTP(t testing.TB, hs *http.Server) (addr string) {
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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	t.Cleanup(func() {
		require.NoError(t, hs.Close())
		assert.ErrorIs(t, <-served, http.ErrServerClosed)
		conns.Wait()
	})
	return ln.Addr().String()
}

// TestNetHTTPDisconnectCancels closes the client's connection while its tool runs: the tool's
// context is cancelled, also when the client had sent a further byte first (the start of a
// pipelined request), at which net/http's own watch of the connection stops.
func TestNetHTTPDisconnectCancels(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the connection probe needs POLLRDHUP (Linux); elsewhere net/http's watch stops at the first further byte")
	}
	for _, tc := range []struct {
		name  string
		after string // sent once the tool runs, before the close
	}{
		{"nothing more sent", ""},
		{"a pipelined byte sent first", "P"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			core := newCore(t)
			b := newBlocker(t, core)
			h, err := NewHandler(core, Config{})
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, h.Close(context.Background())) })
			addr := serveHTTP(t, NewHTTPServer(h, ListenerConfig{Addr: "127.0.0.1:0"}))

			c := dialAt(t, addr)
			_, err = io.WriteString(c, postTo(addr, call("1", "block", `{}`), callHeaders("block")...))
			require.NoError(t, err)
			<-b.started
			if tc.after != "" {
				_, err = io.WriteString(c, tc.after)
				require.NoError(t, err)
			}
			require.NoError(t, c.Close())
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
