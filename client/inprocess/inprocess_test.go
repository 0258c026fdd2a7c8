package inprocess_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/client/inprocess"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fixtures"
)

// fixtureServer returns a server with the conformance and demo catalogs.
func fixtureServer(t testing.TB) *fastmcp.Server {
	t.Helper()
	srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "fixtures", Version: "1.0.0"}, nil)
	require.NoError(t, err)
	require.NoError(t, fixtures.Register(srv, "conformance,demo"))
	return srv
}

// connect returns a Client in-process to a fixture server, closed at cleanup.
func connect(t testing.TB, cfg client.Config) *client.Client {
	t.Helper()
	c, err := inprocess.Connect(fixtureServer(t), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return c
}

func TestConnectConfig(t *testing.T) {
	_, err := inprocess.Connect(nil, client.Config{})
	assert.EqualError(t, err, "inprocess: nil Server")
	for _, era := range []client.Era{client.EraLegacy, client.EraLegacy20250618} {
		_, err = inprocess.Connect(fixtureServer(t), client.Config{Era: era})
		assert.EqualError(t, err, "inprocess: speaks 2026-07-28 only: leave Config.Era zero or EraModern", era.String())
	}
	_, err = inprocess.Connect(fixtureServer(t), client.Config{Command: "srv"})
	assert.EqualError(t, err, "inprocess: Config.Command is for stdio; leave it empty")
	_, err = inprocess.Connect(fixtureServer(t), client.Config{MaxPages: -1})
	assert.EqualError(t, err, "client: MaxPages must be a positive integer, got -1", "the client's own checks apply")

	c := connect(t, client.Config{Era: client.EraModern})
	assert.True(t, c.Modern())
	assert.Equal(t, "2026-07-28", c.ProtocolVersion())
}

func TestCalls(t *testing.T) {
	c := connect(t, client.Config{})
	assert.True(t, c.Modern())
	tools, err := c.ListTools(context.Background())
	require.NoError(t, err)
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	assert.Contains(t, names, "echo")
	assert.Contains(t, names, "sleep")

	res, err := c.CallTool(context.Background(), "echo", map[string]string{"text": "hi"})
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"text","text":"hi"}]`, string(res.Content))
}

// An input_required result is answered by the Config's handler and retried.
func TestMRTR(t *testing.T) {
	c := connect(t, client.Config{Elicitation: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`{"action":"accept","content":{"name":"Ada"}}`), nil
	}})
	res, err := c.CallTool(context.Background(), "greet_user", map[string]any{})
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"text","text":"Hello, Ada!"}]`, string(res.Content))
}

// The server's log messages of a call reach Config.OnLog.
func TestOnLog(t *testing.T) {
	logs := make(chan client.LogMessage, 3)
	c := connect(t, client.Config{OnLog: func(m client.LogMessage) { logs <- m }})
	_, err := c.CallTool(context.Background(), "test_tool_with_logging", nil)
	require.NoError(t, err)
	for _, want := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		select {
		case m := <-logs:
			assert.Equal(t, client.LogMessage{Level: "info", Logger: "test_tool_with_logging", Data: json.RawMessage(strconv.Quote(want))}, m)
		case <-time.After(10 * time.Second):
			t.Fatal("no log message within the wait")
		}
	}
}

func TestCancellationReachesTheHandler(t *testing.T) {
	c := connect(t, client.Config{})
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("test gave up")
	progressed := make(chan struct{}, 1)
	go func() {
		<-progressed // the sleep is running
		cancel(stop)
	}()
	_, err := c.CallTool(ctx, "sleep", map[string]int{"ms": 600_000}, client.WithProgress(func(client.Progress) {
		select {
		case progressed <- struct{}{}:
		default:
		}
	}))
	require.ErrorIs(t, err, stop)
	// Dispatch ran on this goroutine: the handler has returned, and counted itself.
	stats, err := client.Call[struct{}, fixtures.SleepStats](context.Background(), c, "sleep_stats", struct{}{})
	require.NoError(t, err)
	assert.Equal(t, fixtures.SleepStats{Started: 1, Cancelled: 1}, stats)
}

// RequestTimeout bounds a call and cancels its handler; on the bubble's clock it ends at
// exactly the timeout.
func TestRequestTimeoutCancelsTheHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := connect(t, client.Config{RequestTimeout: 2 * time.Second})
		start := time.Now()
		_, err := c.CallTool(context.Background(), "sleep", map[string]int{"ms": 600_000})
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, 2*time.Second, time.Since(start))
		stats, err := client.Call[struct{}, fixtures.SleepStats](context.Background(), c, "sleep_stats", struct{}{})
		require.NoError(t, err)
		assert.Equal(t, fixtures.SleepStats{Started: 1, Cancelled: 1}, stats)
	})
}

// With ResetTimeoutOnProgress, progress keeps a call alive past RequestTimeout, and
// MaxTotalTimeout, not RequestTimeout, bounds the whole call.
func TestMaxTotalTimeoutBoundsAProgressingCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := connect(t, client.Config{RequestTimeout: time.Second, ResetTimeoutOnProgress: true, MaxTotalTimeout: 3 * time.Second})
		start := time.Now()
		_, err := c.CallTool(context.Background(), "sleep", map[string]int{"ms": 600_000}, client.WithProgress(func(client.Progress) {}))
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, 3*time.Second, time.Since(start))
	})
}
