package observe

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHealthEndpoints checks /healthz and /readyz as literal exchanges, readiness following
// the function given (false from the start of a drain).
func TestHealthEndpoints(t *testing.T) {
	var ready atomic.Bool
	ready.Store(true)
	l := startListener(t, prometheus.NewRegistry(), ready.Load)
	get := func(method, path string) (*http.Response, string) {
		return exchange(t, hostOf(l.URL()), method+" "+path+" HTTP/1.1\r\nHost: m\r\nConnection: close\r\n\r\n")
	}
	resp, body := get("GET", "/healthz")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "ok\n", body)
	assert.Equal(t, "no-store", resp.Header.Get("Cache-Control"))
	resp, body = get("GET", "/readyz")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "ready\n", body)

	ready.Store(false) // a drain began
	resp, body = get("GET", "/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, "not ready\n", body)
	resp, body = get("GET", "/healthz")
	assert.Equal(t, http.StatusOK, resp.StatusCode, "still alive while draining")
	assert.Equal(t, "ok\n", body)

	resp, _ = get("POST", "/readyz")
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	assert.Equal(t, "GET, HEAD", resp.Header.Get("Allow"))
	resp, _ = get("GET", "/other")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

// TestListenerHeadTooLarge checks MaxHeaderBytes: a larger head is answered 431.
func TestListenerHeadTooLarge(t *testing.T) {
	l, err := Listen(ListenerConfig{Addr: "127.0.0.1:0", Gatherer: prometheus.NewRegistry(), MaxHeaderBytes: 1024})
	require.NoError(t, err)
	defer func() { require.NoError(t, l.Close()) }()
	resp, _ := exchange(t, hostOf(l.URL()), "GET /metrics HTTP/1.1\r\nHost: m\r\nX-Big: "+strings.Repeat("a", 8<<10)+"\r\n\r\n")
	assert.Equal(t, http.StatusRequestHeaderFieldsTooLarge, resp.StatusCode)
}

// TestListenerHeadTimeout checks ReadHeaderTimeout: a connection that sends a partial head
// is closed unanswered once the timeout passes (the read returns EOF; without the limit it
// would hang until the test's own deadline).
func TestListenerHeadTimeout(t *testing.T) {
	l, err := Listen(ListenerConfig{Addr: "127.0.0.1:0", Gatherer: prometheus.NewRegistry(), ReadHeaderTimeout: 100 * time.Millisecond})
	require.NoError(t, err)
	defer func() { require.NoError(t, l.Close()) }()
	c, err := net.Dial("tcp", hostOf(l.URL()))
	require.NoError(t, err)
	defer c.Close()
	_, err = io.WriteString(c, "GET /metrics HTTP/1.1\r\n")
	require.NoError(t, err)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(30*time.Second)))
	n, err := bufio.NewReader(c).Read(make([]byte, 1))
	assert.Zero(t, n)
	assert.ErrorIs(t, err, io.EOF)
}

// TestListenerConfig checks the constructor's refusals.
func TestListenerConfig(t *testing.T) {
	for _, cfg := range []ListenerConfig{
		{},
		{Gatherer: prometheus.NewRegistry(), ReadHeaderTimeout: -1},
		{Gatherer: prometheus.NewRegistry(), MaxHeaderBytes: -1},
	} {
		_, err := Listen(cfg)
		assert.ErrorIs(t, err, ErrInvalidConfig)
	}
	_, err := NewMetrics(MetricsConfig{})
	assert.ErrorIs(t, err, ErrInvalidConfig)
}

// TestListenerDefaults checks the resolved defaults.
func TestListenerDefaults(t *testing.T) {
	c, err := ListenerConfig{Gatherer: prometheus.NewRegistry()}.resolve()
	require.NoError(t, err)
	assert.Equal(t, DefaultMetricsAddr, c.Addr)
	assert.Equal(t, DefaultReadHeaderTimeout, c.ReadHeaderTimeout)
	assert.Equal(t, DefaultMaxHeaderBytes, c.MaxHeaderBytes)
	assert.True(t, c.Ready())
}
