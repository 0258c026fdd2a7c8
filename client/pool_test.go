package client

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/streamable"
)

func echo(t *testing.T, c *Client) {
	t.Helper()
	_, err := c.CallTool(context.Background(), "echo", []byte(`{"text":"x"}`))
	require.NoError(t, err)
}

func TestPoolReusesConnections(t *testing.T) {
	s := startServer(t, streamable.ListenerConfig{})
	c := connect(t, s.URL(), Config{Era: EraModern})
	for range 10 {
		echo(t, c)
	}
	assert.Equal(t, PoolStats{Dials: 1, Reuses: 9}, c.Stats())
	require.NoError(t, c.Close())
	assert.Equal(t, PoolStats{Dials: 1, Reuses: 9, Retired: 1}, c.Stats(), "Close closes the idle connection")
	_, err := c.CallTool(context.Background(), "echo", nil)
	assert.ErrorIs(t, err, ErrClosed)
}

func TestPoolMaxRequestsRetires(t *testing.T) {
	s := startServer(t, streamable.ListenerConfig{})
	c := connect(t, s.URL(), Config{Era: EraModern, PoolMaxRequests: 3})
	for range 7 {
		echo(t, c)
	}
	assert.Equal(t, PoolStats{Dials: 3, Reuses: 4, Retired: 2}, c.Stats())
}

func TestPoolIdleTimeoutRetires(t *testing.T) {
	s := startServer(t, streamable.ListenerConfig{})
	c := connect(t, s.URL(), Config{Era: EraModern, PoolIdleTimeout: time.Minute})
	p := c.t.(*httpTransport).pool
	now := time.Unix(1000, 0)
	p.nowForTest = func() time.Time { return now }
	echo(t, c)
	now = now.Add(59 * time.Second)
	echo(t, c)
	assert.Equal(t, PoolStats{Dials: 1, Reuses: 1}, c.Stats(), "idle under the timeout: reused")
	now = now.Add(time.Minute)
	echo(t, c)
	assert.Equal(t, PoolStats{Dials: 2, Reuses: 1, Retired: 1}, c.Stats(), "idle a full timeout: retired")
}

// An event stream detaches from the pool: its socket closes at the end and is never reused.
func TestPoolEventStreamRetires(t *testing.T) {
	s := startServer(t, streamable.ListenerConfig{})
	c := connect(t, s.URL(), Config{Era: EraModern})
	_, err := c.CallTool(context.Background(), "test_tool_with_progress", nil, WithProgress(func(Progress) {}))
	require.NoError(t, err)
	echo(t, c)
	assert.Equal(t, PoolStats{Dials: 2, Retired: 1}, c.Stats())
}

// Responses the pool must not reuse: each closes its socket.
func TestPoolRetiresUnreusableResponses(t *testing.T) {
	for name, head := range map[string]string{
		"connection close": "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s",
		"http/1.0":         "HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		"chunked":          "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n",
		"close-framed":     "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n%[2]s",
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
				body := `{"jsonrpc":"2.0","id":` + idOf(r.body) + `,"result":{"resultType":"complete","content":[]}}`
				w.WriteString(fmt.Sprintf(head, len(body), body))
				return false
			})
			c := connect(t, f.url(), Config{Era: EraModern})
			echo(t, c)
			echo(t, c)
			assert.Equal(t, PoolStats{Dials: 2, Retired: 2}, c.Stats())
		})
	}
}

// PoolSize caps the connections; a request finding them all busy waits up to its timeout.
func TestPoolSizeCapsConnections(t *testing.T) {
	inflight := make(chan struct{}, 8)
	release := make(chan struct{})
	f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		inflight <- struct{}{}
		<-release
		jsonResp(w, `{"jsonrpc":"2.0","id":`+idOf(r.body)+`,"result":{"resultType":"complete","content":[]}}`)
		return true
	})
	c := connect(t, f.url(), Config{Era: EraModern, PoolSize: 2, RequestTimeout: 5 * time.Second})
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() { echo(t, c) })
	}
	<-inflight
	<-inflight
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.CallTool(ctx, "echo", nil)
	assert.ErrorIs(t, err, ErrPoolTimeout)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	// A waiting request gets the first connection that frees up.
	third := make(chan error, 1)
	go func() { _, err := c.CallTool(context.Background(), "echo", nil); third <- err }()
	close(release)
	wg.Wait()
	require.NoError(t, <-third)
	assert.Equal(t, int64(2), f.accepts.Load())
	assert.Equal(t, int64(2), c.Stats().Dials)
}

func TestConfigValidation(t *testing.T) {
	for name, cfg := range map[string]Config{
		"PoolSize must be a positive integer, got -1":         {PoolSize: -1},
		"PoolMaxRequests must be a positive integer, got -1":  {PoolMaxRequests: -1},
		"MaxResponseBytes must be a positive integer, got -1": {MaxResponseBytes: -1},
		"MaxPages must be a positive integer, got -1":         {MaxPages: -1},
		"MaxInputRounds must be a positive integer, got -1":   {MaxInputRounds: -1},
		"PoolIdleTimeout must be positive, got -1ns":          {PoolIdleTimeout: -1},
		"RequestTimeout must be positive, got -1ns":           {RequestTimeout: -1},
		"unknown Era 7": {Era: 7},
	} {
		_, err := Connect(context.Background(), "http://127.0.0.1:1/mcp", cfg)
		assert.EqualError(t, err, "client: "+name)
	}
	cfg, err := Config{}.withDefaults()
	require.NoError(t, err)
	assert.Equal(t, 16, cfg.PoolSize)
	assert.Equal(t, 30*time.Second, cfg.PoolIdleTimeout)
	assert.Equal(t, 1000, cfg.PoolMaxRequests)
	assert.Equal(t, 30*time.Second, cfg.RequestTimeout)
	assert.Equal(t, 16<<20, cfg.MaxResponseBytes)
	assert.Equal(t, 1000, cfg.MaxPages)
	assert.Equal(t, 10, cfg.MaxInputRounds)
	assert.Equal(t, 64, cfg.ListenBuffer)

	_, err = Connect(context.Background(), "ftp://x/mcp", Config{})
	assert.EqualError(t, err, `client: target "ftp://x/mcp" is not an http(s) URL`)
	_, err = Connect(context.Background(), "", Config{Command: "x"})
	if startStdio == nil {
		assert.True(t, errors.Is(err, ErrNotImplemented))
	}
}

// A server that closes idle keep-alive connections: the reused socket fails before any byte
// of a response, and the request goes again, once, on a fresh connection.
func TestPoolRetriesStaleConnectionOnce(t *testing.T) {
	f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		jsonResp(w, `{"jsonrpc":"2.0","id":`+idOf(r.body)+`,"result":{"resultType":"complete","content":[]}}`)
		return false // closes without saying Connection: close
	})
	c := connect(t, f.url(), Config{Era: EraModern})
	for range 3 { // each reuse fails on the write or with nothing read, both retried
		echo(t, c)
	}
	st := c.Stats()
	assert.Equal(t, int64(3), st.Dials)
	assert.Equal(t, int64(2), st.Reuses, "each stale connection was taken once")
	assert.Equal(t, int64(3), f.accepts.Load())
}

// An idle connection closes after PoolIdleTimeout even when no request comes to notice.
func TestPoolIdleConnectionsCloseOnTheirOwn(t *testing.T) {
	s := startServer(t, streamable.ListenerConfig{})
	c := connect(t, s.URL(), Config{Era: EraModern, PoolIdleTimeout: 20 * time.Millisecond})
	echo(t, c)
	require.Eventually(t, func() bool { return c.Stats().Retired == 1 }, 10*time.Second, time.Millisecond)
	echo(t, c)
	assert.Equal(t, PoolStats{Dials: 2, Retired: 1}, c.Stats())
}
