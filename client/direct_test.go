package client

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fixtures"
)

func directClient(t *testing.T, cfg Config) *Client {
	t.Helper()
	c, err := Direct(fixtureServer(t), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return c
}

func TestDirectConfig(t *testing.T) {
	_, err := Direct(nil, Config{})
	assert.EqualError(t, err, "client: Direct: nil Server")
	_, err = Direct(fixtureServer(t), Config{Era: EraLegacy})
	assert.EqualError(t, err, "client: Direct speaks 2026-07-28 only: leave Config.Era EraModern")
	_, err = Direct(fixtureServer(t), Config{Command: "srv"})
	assert.EqualError(t, err, "client: Direct: Config.Command is for stdio; leave it empty")
	_, err = Direct(fixtureServer(t), Config{MaxPages: -1})
	assert.EqualError(t, err, "client: MaxPages must be a positive integer, got -1")
}

func TestDirectCalls(t *testing.T) {
	c := directClient(t, Config{})
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

func TestDirectMRTR(t *testing.T) {
	c := directClient(t, Config{Elicitation: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`{"action":"accept","content":{"name":"Ada"}}`), nil
	}})
	res, err := c.CallTool(context.Background(), "greet_user", map[string]any{})
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"text","text":"Hello, Ada!"}]`, string(res.Content))
}

func TestDirectCancellationReachesTheHandler(t *testing.T) {
	c := directClient(t, Config{})
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("test gave up")
	progressed := make(chan struct{}, 1)
	go func() {
		<-progressed // the sleep is running
		cancel(stop)
	}()
	_, err := c.CallTool(ctx, "sleep", map[string]int{"ms": 600_000}, WithProgress(func(Progress) {
		select {
		case progressed <- struct{}{}:
		default:
		}
	}))
	require.ErrorIs(t, err, stop)
	// Dispatch ran on this goroutine: the handler has returned, and counted itself.
	stats, err := Call[struct{}, fixtures.SleepStats](context.Background(), c, "sleep_stats", struct{}{})
	require.NoError(t, err)
	assert.Equal(t, fixtures.SleepStats{Started: 1, Cancelled: 1}, stats)
}
