//go:build linux

package loadtest

import (
	"context"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"github.com/fastmcp-go/fastmcp/streamable"
)

// startRawServer serves h on a loopback port for the test: a stand-in for a server that
// misbehaves in a way the engines must count.
func startRawServer(t *testing.T, h fasthttp.RequestHandler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &fasthttp.Server{Handler: h}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		require.NoError(t, srv.Shutdown())
		require.NoError(t, <-served)
	})
	return "http://" + ln.Addr().String() + "/mcp"
}

// echoReply answers a tools/call with its id and text, as a 2025-11-25 echo server.
func echoReply(ctx *fasthttp.RequestCtx, text string) {
	r, _ := parseReply(ctx.PostBody())
	ctx.SetContentType("application/json")
	ctx.SetBodyString(`{"jsonrpc":"2.0","id":` + string(r.id) + `,"result":{"content":[{"type":"text","text":"` + text + `"}]}}`)
}

// Both engines measure the same endpoint with the same checks: every reply is checked,
// none is lost, and the result names the engine.
func TestThroughputEngines(t *testing.T) {
	e := startEndpoint(t, streamable.ListenerConfig{})
	for _, engine := range []string{"", EngineGoroutines} {
		e.admitted.Store(0)
		res, err := Throughput(context.Background(), ThroughputConfig{
			Target: e.target(), Connections: 4, Duration: 200 * time.Millisecond, Warmup: 50 * time.Millisecond, Engine: engine,
		})
		require.NoError(t, err)
		want := engine
		if want == "" {
			want = EngineEpoll
		}
		assert.Equal(t, want, res.Engine)
		assert.Empty(t, res.Errors, want)
		assert.Positive(t, res.Requests, want)
		assert.Equal(t, res.Requests, res.Latency.Count, want)
		assert.Equal(t, e.admitted.Load(), res.Answered, "%s: every call the server ran was answered and checked", want)
	}
}

// A server that closes each connection after a few requests (Connection: close) costs the
// epoll engine reconnections, never errors.
func TestEpollReconnects(t *testing.T) {
	e := startEndpoint(t, streamable.ListenerConfig{MaxRequestsPerConn: 5})
	res, err := Throughput(context.Background(), ThroughputConfig{
		Target: e.target(), Connections: 3, Duration: 200 * time.Millisecond, Warmup: -1,
	})
	require.NoError(t, err)
	assert.Equal(t, EngineEpoll, res.Engine)
	assert.Empty(t, res.Errors)
	assert.Greater(t, res.Answered, int64(3*5), "past one connection's requests")
	assert.Equal(t, e.admitted.Load(), res.Answered)
}

// A reply that echoes the wrong text is counted, and the engine goes on.
func TestEpollCountsBadReplies(t *testing.T) {
	var n atomic.Int64
	url := startRawServer(t, func(ctx *fasthttp.RequestCtx) {
		text := "hello"
		if n.Add(1)%3 == 0 {
			text = "HELLO"
		}
		echoReply(ctx, text)
	})
	res, err := Throughput(context.Background(), ThroughputConfig{
		Target: Target{URL: url, Dialect: DialectLegacy}, Connections: 2, Duration: 200 * time.Millisecond, Warmup: -1,
	})
	require.NoError(t, err)
	assert.Equal(t, EngineEpoll, res.Engine)
	assert.Positive(t, res.Errors[KindEcho])
	assert.Positive(t, res.Requests)
	assert.InDelta(t, 2*res.Errors[KindEcho], res.Requests, float64(res.Requests)/4+4, "one reply in three is wrong")
}

// A reply the engine cannot frame itself (a chunked body) leaves the load to the goroutines.
func TestEpollLeavesChunkedToGoroutines(t *testing.T) {
	url := startRawServer(t, func(ctx *fasthttp.RequestCtx) {
		r, _ := parseReply(ctx.PostBody())
		ctx.SetContentType("application/json")
		ctx.SetBodyStream(strings.NewReader(`{"jsonrpc":"2.0","id":`+string(r.id)+`,"result":{"content":[{"type":"text","text":"hello"}]}}`), -1)
	})
	res, err := Throughput(context.Background(), ThroughputConfig{
		Target: Target{URL: url, Dialect: DialectLegacy}, Connections: 2, Duration: 100 * time.Millisecond, Warmup: -1,
	})
	require.NoError(t, err)
	assert.Equal(t, EngineGoroutines, res.Engine)
	assert.Empty(t, res.Errors)
	assert.Positive(t, res.Requests)
}

// A server that stops answering: each connection's request in flight times out (and the run
// ends: a hang would be the test's timeout).
func TestEpollTimesOut(t *testing.T) {
	release := make(chan struct{})
	var n atomic.Int64
	url := startRawServer(t, func(ctx *fasthttp.RequestCtx) {
		if n.Add(1) > 10 {
			<-release
		}
		echoReply(ctx, "hello")
	})
	defer close(release)
	res, err := Throughput(context.Background(), ThroughputConfig{
		Target: Target{URL: url, Dialect: DialectLegacy}, Connections: 2, Duration: 300 * time.Millisecond, Warmup: -1,
		Timeout: 100 * time.Millisecond,
	})
	require.NoError(t, err)
	assert.Equal(t, EngineEpoll, res.Engine)
	assert.Positive(t, res.Errors[KindTimeout])
}
