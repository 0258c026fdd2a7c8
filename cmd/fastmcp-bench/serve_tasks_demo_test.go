package main

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fixtures"
	"github.com/fastmcp-go/fastmcp/internal/wireschema"
	"github.com/fastmcp-go/fastmcp/tasks"
)

// TestStartTasksDemo: the demo fixtures alone get the extension (for report), --tasks-store
// off serves none, and a negative --tasks-lease is a usage error.
func TestStartTasksDemo(t *testing.T) {
	discover := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + testMeta + `}}`
	newDemo := func() *fastmcp.Server {
		srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "t", Version: "1"}, &fastmcp.Config{Logger: slog.New(slog.DiscardHandler)})
		require.NoError(t, err)
		fixtures.Demo(srv)
		return srv
	}
	logger := slog.New(slog.DiscardHandler)

	srv := newDemo()
	stop, err := startTasks(srv, "demo", tasksOptions{store: "memory"}, logger, nil)
	require.NoError(t, err)
	reply := srv.Dispatch(context.Background(), []byte(discover), nil)
	wireschema.RequireValid(t, "DiscoverResultResponse", reply)
	assert.Contains(t, string(reply), `"extensions":{"io.modelcontextprotocol/tasks":{}}`)
	stop()

	srv = newDemo()
	stop, err = startTasks(srv, "demo", tasksOptions{store: "off"}, logger, nil)
	require.NoError(t, err)
	assert.NotContains(t, string(srv.Dispatch(context.Background(), []byte(discover), nil)), "io.modelcontextprotocol/tasks")
	stop()

	_, err = startTasks(newDemo(), "demo", tasksOptions{store: "memory", lease: -1}, logger, nil)
	var ue usageError
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, err.Error(), "negative duration")
}

// TestStartTasksTTL: --tasks-ttl is every task's ttlMs (0, as a user may write, selects the
// package's default of 1 h); a negative one is refused before anything starts.
func TestStartTasksTTL(t *testing.T) {
	logger := slog.New(slog.DiscardHandler)
	create := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"report","arguments":{"topic":"ttl"},` + taskMeta + `}}`
	for _, tc := range []struct {
		ttl  time.Duration
		want string
	}{{90 * time.Second, `"ttlMs":90000`}, {0, `"ttlMs":3600000`}, {tasks.DefaultTTL, `"ttlMs":3600000`}} {
		srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "t", Version: "1"}, &fastmcp.Config{Logger: logger})
		require.NoError(t, err)
		fixtures.Demo(srv)
		stop, err := startTasks(srv, "demo", tasksOptions{store: "memory", ttl: tc.ttl}, logger, nil)
		require.NoError(t, err)
		reply := string(srv.Dispatch(context.Background(), []byte(create), nil))
		stop()
		assert.Contains(t, reply, `"resultType":"task"`)
		assert.Contains(t, reply, tc.want, "--tasks-ttl %v", tc.ttl)
	}

	srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "t", Version: "1"}, &fastmcp.Config{Logger: logger})
	require.NoError(t, err)
	fixtures.Demo(srv)
	_, err = startTasks(srv, "demo", tasksOptions{store: "memory", ttl: -time.Second}, logger, nil)
	var ue usageError
	require.ErrorAs(t, err, &ue)
	assert.EqualError(t, err, "--tasks-ttl -1s is negative: give a task's time to live (0 selects the default, 1h0m0s)")
}
