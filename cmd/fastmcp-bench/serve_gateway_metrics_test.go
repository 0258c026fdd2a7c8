package main

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/gateway"
)

// testServeGatewayLimits: serve --backend with --backend-limits and --metrics, in front of a
// real backend and one that is down: the rate limit refuses the call past it with its
// error, /metrics has each backend's series, and /readyz lists each backend, ready while one
// is up and not ready when none is.
func testServeGatewayLimits(t *testing.T, bin string) {
	backend := startServe(t, bin, "--addr", "127.0.0.1:0")
	const down = "http://127.0.0.1:1/mcp" // nothing listens on port 1
	gw := startServe(t, bin, "--addr", "127.0.0.1:0", "--metrics", "127.0.0.1:0",
		"--backend", "web="+backend.url, "--backend", "gone="+down, "--backend-limits", "web:rate=0.001,burst=1,timeout=5s")
	call := func(id string) string {
		code, body := post(t, gw.url, "tools/call", "web__echo",
			`{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"web__echo","arguments":{"text":"hi"},`+testMeta+`}}`)
		require.Equal(t, http.StatusOK, code, body)
		return body
	}
	assert.Contains(t, call("1"), `"content":[{"type":"text","text":"hi"}]`)
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Backend \"web\" is over its rate limit","data":{"backend":"web"}}}`, call("2"))

	hc := &http.Client{Timeout: 10 * time.Second}
	defer hc.CloseIdleConnections()
	get := func(s *server, path string) (int, string) {
		resp, err := hc.Get(s.debug.Metrics + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	_, metrics := get(gw, "/metrics")
	for _, series := range []string{
		`fastmcp_gateway_backend_up{backend="web"} 1`,
		`fastmcp_gateway_backend_up{backend="gone"} 0`,
		`fastmcp_gateway_backend_breaker{backend="web",state="closed"} 1`,
		`fastmcp_gateway_backend_breaker{backend="web",state="open"} 0`,
		`fastmcp_gateway_backend_calls_total{backend="web",outcome="ok"} 1`,
		`fastmcp_gateway_backend_refused_total{backend="web",reason="rate"} 1`,
		`fastmcp_gateway_backend_in_flight{backend="web"} 0`,
		`fastmcp_gateway_backend_connections_total{backend="web"} 1`,
	} {
		assert.Contains(t, metrics, series+"\n")
	}
	code, body := get(gw, "/readyz")
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, "ready\nbackend web up breaker=closed\nbackend gone down breaker=closed\n", body)

	alone := startServe(t, bin, "--addr", "127.0.0.1:0", "--metrics", "127.0.0.1:0", "--backend", "gone="+down)
	code, body = get(alone, "/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Equal(t, "not ready\nbackend gone down breaker=closed\n", body)
}

// TestBackendLimitsFlag: --backend-limits sets each key on the backend it names, and only
// those keys; an unknown key, a bad value or a name without a --backend is refused.
func TestBackendLimitsFlag(t *testing.T) {
	var l backendLimits
	require.NoError(t, l.set("web:timeout=2s,max-concurrent=8,rate=2.5,burst=4"))
	require.NoError(t, l.set("web:breaker-failures=3,breaker-cooldown=1m"))
	backends := []gateway.Backend{{Name: "local"}, {Name: "web"}}
	require.NoError(t, l.apply(backends))
	assert.Equal(t, gateway.Backend{Name: "local"}, backends[0])
	assert.Equal(t, gateway.Backend{Name: "web", Timeout: 2 * time.Second, MaxConcurrent: 8, Rate: 2.5, Burst: 4,
		BreakerFailures: 3, BreakerCooldown: time.Minute}, backends[1])

	// Over a --gateway-config backend: the keys given replace its limits, the others stay.
	var over backendLimits
	require.NoError(t, over.set("file:rate=9"))
	fromFile := []gateway.Backend{{Name: "file", Timeout: time.Second, MaxConcurrent: 4, Rate: 1, BreakerFailures: 2}}
	require.NoError(t, over.apply(fromFile))
	assert.Equal(t, gateway.Backend{Name: "file", Timeout: time.Second, MaxConcurrent: 4, Rate: 9, BreakerFailures: 2}, fromFile[0])

	for _, bad := range []string{"web", "web:", ":rate=1", "web:speed=1", "web:rate=fast", "web:timeout=5"} {
		var l backendLimits
		assert.Error(t, l.set(bad), bad)
	}
	require.NoError(t, l.set("nope:rate=1"))
	assert.ErrorIs(t, l.apply(backends), gateway.ErrInvalidConfig)
}
