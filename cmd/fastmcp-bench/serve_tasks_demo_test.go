package main

import (
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fixtures"
	"github.com/fastmcp-go/fastmcp/internal/wireschema"
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
