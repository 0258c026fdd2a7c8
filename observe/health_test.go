package observe

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// TestMetricsListenerReadyFollowsDrain serves the metrics listener with the native listener's
// Ready: /readyz answers 200 while it serves and 503 from the start of its drain, while a
// request is still in flight, and /healthz stays 200 throughout (literal exchanges).
func TestMetricsListenerReadyFollowsDrain(t *testing.T) {
	core := newCore(t, nil)
	started, release := make(chan struct{}), make(chan struct{})
	fastmcp.AddTool(core, fastmcp.Tool{Name: "block", Description: "Block until released"}, func(context.Context, *fastmcp.Request, struct{}) (fastmcp.ToolResult, error) {
		close(started)
		<-release
		return fastmcp.ToolResult{Text: "released"}, nil
	})
	s := startHTTP(t, core, streamable.ListenerConfig{})
	l := startListener(t, prometheus.NewRegistry(), s.Ready)
	health := func(path string) (int, string) {
		resp, body := exchange(t, hostOf(l.URL()), "GET "+path+" HTTP/1.1\r\nHost: metrics\r\nConnection: close\r\n\r\n")
		return resp.StatusCode, body
	}

	// An answered request proves Serve runs, so the listener is ready.
	resp, _ := exchange(t, hostOf(s.URL()), post(s, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+meta+`},"name":"echo","arguments":{"text":"hi"}}}`, "Mcp-Method: tools/call", "Mcp-Name: echo"))
	require.Equal(t, http.StatusOK, resp.StatusCode)
	code, body := health(streamable.ReadyzPath)
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, "ready\n", body)

	inflight := make(chan string, 1)
	go func() {
		_, body := exchange(t, hostOf(s.URL()), post(s, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{`+meta+`},"name":"block","arguments":{}}}`, "Mcp-Method: tools/call", "Mcp-Name: block"))
		inflight <- body
	}()
	<-started
	drained := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		drained <- s.Shutdown(ctx)
	}()
	// Shutdown marks the drain before anything else; the deadline bounds the wait for it.
	require.Eventually(t, func() bool { code, _ := health(streamable.ReadyzPath); return code == http.StatusServiceUnavailable }, 10*time.Second, time.Millisecond)
	code, body = health(streamable.ReadyzPath)
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Equal(t, "not ready\n", body)
	code, body = health(streamable.HealthzPath)
	assert.Equal(t, http.StatusOK, code, "alive while draining")
	assert.Equal(t, "ok\n", body)
	select {
	case <-drained:
		t.Fatal("the drain ended with a request in flight")
	default:
	}

	close(release)
	assert.Contains(t, <-inflight, `"text":"released"`)
	require.NoError(t, <-drained)
	code, _ = health(streamable.ReadyzPath)
	assert.Equal(t, http.StatusServiceUnavailable, code, "not ready after the drain")
}
