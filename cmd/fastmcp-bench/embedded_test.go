package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// The default run's embedded endpoint serves the demo's report tool with the Tasks extension
// (on SQLite, as serve does): a client that declares the extension gets a task it can await.
func TestEmbeddedServesTasks(t *testing.T) {
	e, err := startEmbedded(streamable.ListenerConfig{}, false)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	defer func() { require.NoError(t, e.shutdown(ctx)) }()

	c, err := client.Connect(ctx, e.srv.URL(), client.Config{})
	require.NoError(t, err)
	defer c.Close()
	res, task, err := c.CallToolTask(ctx, "report", map[string]any{"topic": "q4", "seconds": 1})
	require.NoError(t, err)
	require.Nil(t, res, "a declaring client gets a task")
	require.NotNil(t, task)
	done, err := task.Await(ctx)
	require.NoError(t, err)
	require.Equal(t, client.TaskCompleted, done.Status)
	require.NoError(t, done.Err())
}
