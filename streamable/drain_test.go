package streamable

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startUnmanaged starts a listener whose shutdown the test drives itself.
func startUnmanaged(t *testing.T, cfg ListenerConfig) (*Server, *blocker, <-chan error) {
	t.Helper()
	core := newCore(t)
	b := newBlocker(t, core)
	cfg.Addr = "127.0.0.1:0"
	s, err := New(core, cfg)
	require.NoError(t, err)
	require.NoError(t, s.Listen())
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	return s, b, done
}

// Seed cases 7 and 8: during a drain, a request read in full runs to its 200; a connection
// that sent only its request line gets 503 "Server is shutting down"; new connections are
// refused; Shutdown waits for the in-flight request.
func TestDrain(t *testing.T) {
	active := make(chan struct{}, 8)
	testHookActive = func() { active <- struct{}{} }
	defer func() { testHookActive = nil }()
	s, b, served := startUnmanaged(t, ListenerConfig{})
	inflight := dial(t, s)
	_, _ = io.WriteString(inflight, post(s, call("1", "block", `{}`), callHeaders("block")...))
	<-b.started
	<-active
	partial := dial(t, s)
	_, _ = io.WriteString(partial, "POST /mcp HTTP/1.1\r\n")
	<-active // the server is reading its head

	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown(context.Background()) }()

	resp, body := readResponse(t, bufio.NewReader(partial))
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Server is shutting down"}}`, body)

	_, err := net.DialTimeout("tcp", hostOf(s), time.Second)
	assert.Error(t, err, "new connections are refused")

	select {
	case <-shut:
		t.Fatal("Shutdown returned before the in-flight request finished")
	default:
	}
	close(b.release)
	resp, body = readResponse(t, bufio.NewReader(inflight))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, body, `"text":"released"`)
	require.NoError(t, <-shut)
	require.ErrorIs(t, <-served, ErrServerClosed)
	assert.Equal(t, int64(1), s.Stats().Drains)
}

// Seed case 10: past DrainTimeout the remaining connections are closed and their work
// cancelled; the client gets no response.
func TestDrainTimeout(t *testing.T) {
	s, b, served := startUnmanaged(t, ListenerConfig{Config: Config{DrainTimeout: 200 * time.Millisecond, RequestTimeout: NoTimeout}})
	c := dial(t, s)
	_, _ = io.WriteString(c, post(s, call("1", "block", `{}`), callHeaders("block")...))
	<-b.started
	start := time.Now()
	err := s.Shutdown(context.Background())
	elapsed := time.Since(start)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.GreaterOrEqual(t, elapsed, 200*time.Millisecond)
	assert.Less(t, elapsed, 3*time.Second)
	assert.ErrorIs(t, <-b.ended, context.Canceled, "the handler's work is cancelled")
	n, rerr := c.Read(make([]byte, 64))
	assert.Zero(t, n, "no HTTP response")
	assert.Error(t, rerr)
	require.ErrorIs(t, <-served, ErrServerClosed)
}
