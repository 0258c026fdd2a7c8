package streamable

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/pool"
)

// blockingCore adds a tool "block" that signals started and waits for release (or its
// context), and reports how it ended on ended.
type blocker struct {
	started chan struct{}
	release chan struct{}
	ended   chan error
}

func newBlocker(t testing.TB, s *fastmcp.Server) *blocker {
	b := &blocker{started: make(chan struct{}, 16), release: make(chan struct{}), ended: make(chan error, 16)}
	fastmcp.AddTool(s, fastmcp.Tool{Name: "block", Description: "Block"}, func(ctx context.Context, _ *fastmcp.Request, _ struct{}) (fastmcp.ToolResult, error) {
		b.started <- struct{}{}
		select {
		case <-b.release:
			b.ended <- nil
			return fastmcp.ToolResult{Text: "released"}, nil
		case <-ctx.Done():
			b.ended <- ctx.Err()
			return fastmcp.ToolResult{}, ctx.Err()
		}
	})
	return b
}

func dial(t testing.TB, s *Server) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", hostOf(s))
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
	return c
}

// Seed case 1: at the connection cap, a new connection is closed without being read; when
// one closes, capacity returns.
func TestMaxConnections(t *testing.T) {
	s := startServer(t, newCore(t), ListenerConfig{MaxConnections: 2})
	a, b := dial(t, s), dial(t, s)
	_, _ = a, b
	require.Eventually(t, func() bool { return s.Stats().OpenConnections == 2 }, 5*time.Second, time.Millisecond)

	third := dial(t, s)
	_, _ = io.WriteString(third, post(s, list("1"), "Mcp-Method: tools/list"))
	_, err := third.Read(make([]byte, 1))
	require.Error(t, err, "the connection over the cap is closed unread")
	assert.Equal(t, int64(1), s.Stats().ClosedAtCap)

	// b still works; closing a frees a place for a new connection.
	_, err = io.WriteString(b, post(s, list("2"), "Mcp-Method: tools/list"))
	require.NoError(t, err)
	resp, _ := readResponse(t, bufio.NewReader(b))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	a.Close()
	require.Eventually(t, func() bool { return s.Stats().OpenConnections == 1 }, 5*time.Second, time.Millisecond)
	resp, _ = exchange(t, s, post(s, list("3"), "Mcp-Method: tools/list"))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

// Seed case 2: a head trickled byte by byte is cut at HeadTimeout, well before the per-read
// timeout would allow it to go on forever.
func TestSlowLorisHead(t *testing.T) {
	s := startServer(t, newCore(t), ListenerConfig{HeadTimeout: 300 * time.Millisecond, ReadTimeout: time.Second})
	c := dial(t, s)
	start := time.Now()
	head := "POST /mcp HTTP/1.1\r\nHost: " + hostOf(s) + "\r\nX-Slow: " + strings.Repeat("a", 500)
	var err error
	for i := 0; i < len(head) && err == nil; i++ {
		_, err = c.Write([]byte{head[i]})
		time.Sleep(20 * time.Millisecond) // the client's trickle, not a wait for the server
	}
	if err == nil {
		_, _ = io.ReadAll(c) // ends when the server cuts the head
	}
	elapsed := time.Since(start)
	assert.GreaterOrEqual(t, elapsed, 300*time.Millisecond)
	assert.Less(t, elapsed, 3*time.Second)
	// The listener still serves.
	resp, _ := exchange(t, s, post(s, list("1"), "Mcp-Method: tools/list"))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

func TestBodyLimits(t *testing.T) {
	s := startServer(t, newCore(t), ListenerConfig{Config: Config{MaxBodyBytes: 250, MaxHeaderBytes: 1024}})
	resp, body := exchange(t, s, post(s, call("1", "echo", `{"text":"`+strings.Repeat("x", 300)+`"}`), callHeaders("echo")...))
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	assert.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Request body exceeds the maximum size"}}`, body)

	resp, _ = exchange(t, s, post(s, list("1"), "Mcp-Method: tools/list", "X-Big: "+strings.Repeat("h", 2000)))
	assert.Equal(t, http.StatusRequestHeaderFieldsTooLarge, resp.StatusCode)

	resp, _ = exchange(t, s, post(s, list("1"), "Mcp-Method: tools/list"))
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the next request is served")
}

// Seed case 12: a request queued behind a blocker times out with 504 while the blocker (which
// ignores its context) keeps running.
func TestRequestTimeoutQueued(t *testing.T) {
	core := newCore(t)
	b := &blocker{started: make(chan struct{}, 1), release: make(chan struct{}), ended: make(chan error, 1)}
	fastmcp.AddTool(core, fastmcp.Tool{Name: "block", Description: "Block"}, func(context.Context, *fastmcp.Request, struct{}) (fastmcp.ToolResult, error) {
		b.started <- struct{}{}
		<-b.release
		b.ended <- nil
		return fastmcp.ToolResult{Text: "released"}, nil
	})
	exec, err := pool.New(pool.Config{MaxConcurrency: 1, MaxQueue: 4, DefaultTimeout: pool.NoTimeout})
	require.NoError(t, err)
	defer exec.Close(context.Background())
	s := startServer(t, core, ListenerConfig{Config: Config{Executor: exec, RequestTimeout: 100 * time.Millisecond}})

	first := dial(t, s)
	_, _ = io.WriteString(first, post(s, call("1", "block", `{}`), callHeaders("block")...))
	<-b.started
	resp, body := exchange(t, s, post(s, call("2", "echo", `{"text":"x"}`), callHeaders("echo")...))
	assert.Equal(t, http.StatusGatewayTimeout, resp.StatusCode)
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Request execution timed out"}}`, body)
	assert.Equal(t, 1, exec.Running(), "the blocker is still running")
	assert.GreaterOrEqual(t, s.Stats().RequestTimeouts, int64(1))
	close(b.release)
	<-b.ended
}

// Overload: concurrency 1 with no queue refuses a second request with 503.
func TestOverload(t *testing.T) {
	core := newCore(t)
	b := newBlocker(t, core)
	s := startServer(t, core, ListenerConfig{Config: Config{MaxConcurrency: 1, MaxQueue: pool.NoQueue, RequestTimeout: NoTimeout}})
	first := dial(t, s)
	_, _ = io.WriteString(first, post(s, call("1", "block", `{}`), callHeaders("block")...))
	<-b.started
	resp, body := exchange(t, s, post(s, call(`"x"`, "echo", `{"text":"x"}`), callHeaders("echo")...))
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, `{"jsonrpc":"2.0","id":"x","error":{"code":-32603,"message":"Server execution capacity exhausted"}}`, body)
	close(b.release)
	resp, _ = readResponse(t, bufio.NewReader(first))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

// Seed case 15: a client that disconnects mid-call cancels exactly its job; the next request
// is served.
func TestDisconnectCancels(t *testing.T) {
	core := newCore(t)
	b := newBlocker(t, core)
	s := startServer(t, core, ListenerConfig{})
	c := dial(t, s)
	_, _ = io.WriteString(c, post(s, call("1", "block", `{}`), callHeaders("block")...))
	<-b.started
	start := time.Now()
	c.Close()
	select {
	case err := <-b.ended:
		assert.ErrorIs(t, err, context.Canceled)
		assert.Less(t, time.Since(start), 100*time.Millisecond+watchDelay, "cancelled within 100 ms of the disconnect")
	case <-time.After(5 * time.Second):
		t.Fatal("the handler was not cancelled")
	}
	resp, _ := exchange(t, s, post(s, call("2", "echo", `{"text":"x"}`), callHeaders("echo")...))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	// Counted on the connection's goroutine once the cancelled handler has returned, which
	// the blocker reports just before.
	require.Eventually(t, func() bool { return s.Stats().Disconnects == 1 }, 5*time.Second, time.Millisecond)
	assert.Equal(t, int64(1), s.Stats().Disconnects)
}

// Seed case 20: with concurrency 2, a fast request finishes before an earlier slow one.
func TestFastBeforeSlow(t *testing.T) {
	core := newCore(t)
	b := newBlocker(t, core)
	s := startServer(t, core, ListenerConfig{Config: Config{MaxConcurrency: 2}})
	slow := dial(t, s)
	_, _ = io.WriteString(slow, post(s, call("1", "block", `{}`), callHeaders("block")...))
	<-b.started
	resp, body := exchange(t, s, post(s, call("2", "echo", `{"text":"fast"}`), callHeaders("echo")...))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, body, `"text":"fast"`)
	close(b.release)
	resp, body = readResponse(t, bufio.NewReader(slow))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, body, `"text":"released"`)
}

func TestConfigValidation(t *testing.T) {
	core := newCore(t)
	for _, cfg := range []ListenerConfig{
		{MaxConnections: -1}, {HeadTimeout: -1}, {Config: Config{MaxSubscriptions: -1}}, {Config: Config{DrainTimeout: -1}}, {DrainDelay: -1}, {Config: Config{Path: "mcp"}},
	} {
		_, err := New(core, cfg)
		assert.ErrorIs(t, err, ErrInvalidConfig, "%+v", cfg)
	}
}

// Seed case 21: arbitrary heads get a 4xx or a close, and the listener serves the next request.
func TestGarbageHeads(t *testing.T) {
	s := startServer(t, newCore(t), ListenerConfig{HeadTimeout: time.Second})
	for _, head := range []string{
		"\x00\x01\x02\r\n\r\n", "GET\r\n\r\n", "POST /mcp HTTP/9.9\r\n\r\n", "POST /mcp HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
		"POST /mcp HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello", "POST /mcp HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
		"POST /mcp HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
	} {
		c := dial(t, s)
		_, _ = io.WriteString(c, head)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err == nil {
			assert.GreaterOrEqual(t, resp.StatusCode, 400, "%q", head)
			assert.Less(t, resp.StatusCode, 500, "%q", head)
		}
	}
	resp, _ := exchange(t, s, post(s, list("1"), "Mcp-Method: tools/list"))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}
