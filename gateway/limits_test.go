package gateway

import (
	"context"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// startGatewayClock is startGateway with clock as the limits' clock.
func startGatewayClock(t testing.TB, cfg Config, clock *fakeClock) (*Gateway, string) {
	t.Helper()
	srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "gateway", Version: "1"}, nil)
	require.NoError(t, err)
	cfg.Logger = slog.New(slog.DiscardHandler)
	cfg.MinRestartDelay, cfg.MaxRestartDelay = 10*time.Millisecond, 100*time.Millisecond
	g, err := New(srv, cfg)
	require.NoError(t, err)
	g.now = clock.now
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	g.Start(ctx)
	t.Cleanup(func() { require.NoError(t, g.Close()) })
	url, _ := serveHTTP(t, srv, "", nil)
	return g, url
}

// limitError is the error a caller gets from a backend's limit.
func limitError(name, what string) client.Error {
	return client.Error{Code: -32603, Message: `Backend "` + name + `" ` + what, Data: []byte(`{"backend":"` + name + `"}`)}
}

// echoError calls tool (an echo) and returns the JSON-RPC error it must get.
func echoError(t *testing.T, ctx context.Context, c *client.Client, tool string) client.Error {
	t.Helper()
	_, err := c.CallTool(ctx, tool, map[string]string{"text": "refused?"})
	var rpc *client.Error
	require.ErrorAs(t, err, &rpc, "%s", tool)
	return *rpc
}

// TestBackendTimeout: a call past the backend's Timeout ends with the timeout error, long
// before the client's RequestTimeout, and the backend sees its request end.
func TestBackendTimeout(t *testing.T) {
	p := newProbe()
	url, _ := serveHTTP(t, newBackendServer("a", p), "", nil)
	g, gw := startGateway(t, Config{Backends: []Backend{{Name: "a", URL: url, Timeout: 100 * time.Millisecond}},
		Client: client.Config{RequestTimeout: time.Hour}})
	c := connect(t, gw, client.EraModern)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	assert.Equal(t, limitError("a", "did not answer in time"), callError(t, ctx, c, "slow"))
	<-p.cancelled
	echoes(t, ctx, c, "echo", "a: still")
	st := g.Status()[0]
	assert.Equal(t, int64(1), st.Calls.Timeouts)
	assert.Equal(t, int64(1), st.Calls.OK)
}

// TestBackendTimeoutRaisesRequestTimeout: a Timeout longer than the client's
// RequestTimeout is this backend's RequestTimeout; a shorter one, or none, leaves it.
func TestBackendTimeoutRaisesRequestTimeout(t *testing.T) {
	for _, tc := range []struct{ timeout, rt, want time.Duration }{
		{0, 0, 0},
		{0, time.Second, time.Second},
		{time.Minute, 0, time.Minute},
		{time.Second, 0, client.DefaultRequestTimeout},
		{time.Minute, time.Second, time.Minute},
	} {
		l := &limits{timeout: tc.timeout}
		assert.Equal(t, tc.want, l.requestTimeout(tc.rt), "Timeout %v, RequestTimeout %v", tc.timeout, tc.rt)
	}
}

// TestBackendMaxConcurrent: past MaxConcurrent calls in flight the next is refused at once
// with the concurrency error, whatever its entry (a prompt too), while other backends
// serve; once a call ends, calls go through again. Refusals leave no goroutine and no heap
// behind.
func TestBackendMaxConcurrent(t *testing.T) {
	p := newProbe()
	url, _ := serveHTTP(t, newBackendServer("a", p), "", nil)
	urlB, _ := serveHTTP(t, newBackendServer("b", nil), "", nil)
	g, gw := startGateway(t, Config{Backends: []Backend{{Name: "a", URL: url, MaxConcurrent: 2}, {Name: "b", URL: urlB}}})
	c := connect(t, gw, client.EraModern)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	sctx, scancel := context.WithCancel(ctx)
	done := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := c.CallTool(sctx, "a__slow", nil)
			done <- err
		}()
		<-p.started
	}
	want := limitError("a", "has too many calls in flight")
	assert.Equal(t, want, echoError(t, ctx, c, "a__echo"))
	_, err := c.GetPrompt(ctx, "a__hello", map[string]string{"who": "you"})
	var rpc *client.Error
	require.ErrorAs(t, err, &rpc)
	assert.Equal(t, want, *rpc)
	echoes(t, ctx, c, "b__echo", "b: still")
	assert.Equal(t, 2, g.Status()[0].InFlight)

	refuse := func(n int) {
		for range n {
			assert.Equal(t, want, echoError(t, ctx, c, "a__echo"))
		}
	}
	// What refusals leave behind would grow with their number: after the pools warmed up
	// (their connections are goroutines), a thousand more leave the goroutines and the heap
	// as they were. The listeners' per-connection goroutines are not counted (see
	// ownGoroutines): their number follows the connections and the two held calls (whose
	// disconnect watch the listener's tick starts once they have run a while), not the
	// refusals.
	refuse(500)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	goroutines := ownGoroutines()
	refuse(1000)
	runtime.GC()
	runtime.ReadMemStats(&after)
	t.Logf("goroutines %d -> %d (the listeners' per-connection ones aside), heap %d -> %d bytes over 1000 refusals", goroutines, ownGoroutines(), before.HeapAlloc, after.HeapAlloc)
	assert.LessOrEqual(t, ownGoroutines(), goroutines+2, "refused calls leave goroutines behind")
	assert.Less(t, int64(after.HeapAlloc)-int64(before.HeapAlloc), int64(1<<20), "refused calls leave heap behind")

	scancel()
	for range 2 {
		require.ErrorIs(t, <-done, context.Canceled)
	}
	// The callers left; the gateway's calls end when the backend's answers to them come.
	waitFor(t, "the cancelled calls to end", func() bool { return g.Status()[0].InFlight == 0 })
	echoes(t, ctx, c, "a__echo", "a: still")
	st := g.Status()[0]
	assert.Equal(t, int64(1502), st.Calls.OverConcurrency)
	assert.Equal(t, int64(2), st.Calls.Cancelled)
}

// TestBackendRateLimit: Burst calls at once, then Rate a second; the one past them is
// refused with the rate error, and a second later one goes through again.
func TestBackendRateLimit(t *testing.T) {
	url, _ := serveHTTP(t, newBackendServer("a", nil), "", nil)
	clock := newFakeClock()
	g, gw := startGatewayClock(t, Config{Backends: []Backend{{Name: "a", URL: url, Rate: 1, Burst: 2}}}, clock)
	c := connect(t, gw, client.EraModern)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	want := limitError("a", "is over its rate limit")
	echoes(t, ctx, c, "echo", "a: still")
	echoes(t, ctx, c, "echo", "a: still")
	assert.Equal(t, want, echoError(t, ctx, c, "echo"))
	clock.advance(time.Second)
	echoes(t, ctx, c, "echo", "a: still")
	assert.Equal(t, want, echoError(t, ctx, c, "echo"))
	st := g.Status()[0]
	assert.Equal(t, int64(3), st.Calls.OK)
	assert.Equal(t, int64(2), st.Calls.OverRate)
}

// TestBackendBreaker: BreakerFailures calls in a row that time out open the backend's
// breaker; calls then fail at once with the unavailable error, without reaching it (its
// other tools too), until the cooldown has passed; the probe that times out opens it
// again, the one that is answered closes it. The backend stays up throughout.
func TestBackendBreaker(t *testing.T) {
	p, urlBad, _ := newBadBackend(t, "bad")
	clock := newFakeClock()
	g, gw := startGatewayClock(t, Config{Backends: []Backend{{
		Name: "bad", URL: urlBad, Timeout: 100 * time.Millisecond, BreakerFailures: 3, BreakerCooldown: time.Minute,
	}}}, clock)
	c := connect(t, gw, client.EraModern)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	timedOut, unavailable := limitError("bad", "did not answer in time"), limitError("bad", "is unavailable")
	state := func() BreakerState { return g.Status()[0].Breaker }

	for range 3 {
		require.Equal(t, BreakerClosed, state())
		assert.Equal(t, timedOut, callError(t, ctx, c, badHang))
		<-p.hangs
		<-p.hangEnded
	}
	require.Equal(t, BreakerOpen, state())
	assert.Equal(t, unavailable, callError(t, ctx, c, badHang))
	assert.Equal(t, unavailable, echoError(t, ctx, c, "echo"))
	assert.Empty(t, p.hangs, "a call reached the backend while the breaker was open")
	assert.Equal(t, int64(2), g.Status()[0].Calls.BreakerOpen)

	clock.advance(time.Minute)
	require.Equal(t, BreakerHalfOpen, state())
	assert.Equal(t, timedOut, callError(t, ctx, c, badHang), "the probe reaches the backend")
	<-p.hangs
	<-p.hangEnded
	require.Equal(t, BreakerOpen, state(), "the probe timed out")
	assert.Equal(t, unavailable, echoError(t, ctx, c, "echo"))

	clock.advance(time.Minute)
	echoes(t, ctx, c, "echo", "bad: still")
	require.Equal(t, BreakerClosed, state(), "the probe was answered")
	echoes(t, ctx, c, "echo", "bad: still")
	st := g.Status()[0]
	assert.True(t, st.Up)
	assert.Equal(t, int64(2), st.BreakerOpened)
	assert.Equal(t, int64(4), st.Calls.Timeouts)
	assert.Equal(t, int64(3), st.Calls.BreakerOpen)
	assert.Equal(t, int64(2), st.Calls.OK)
	assert.Equal(t, 1, st.Connections, "the breaker does not reconnect")
}

// ownGoroutines counts the live goroutines but the listeners' per-connection ones:
// fasthttp's workers (one per connection served lately, idle ones kept for
// MaxIdleWorkerDuration) and streamable's disconnect watches of running requests.
func ownGoroutines() int {
	buf := make([]byte, 4<<20)
	n := 0
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if !strings.Contains(g, "fasthttp.(*workerPool).workerFunc") && !strings.Contains(g, "streamable.(*conn).watchReads") {
			n++
		}
	}
	return n
}
