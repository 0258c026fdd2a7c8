package client

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/streamable"
	"github.com/fastmcp-go/fastmcp/tasks"
)

// serveHTTP serves srv over Streamable HTTP on a free loopback port until the test ends.
func serveHTTP(t *testing.T, srv *fastmcp.Server) string {
	t.Helper()
	s, err := streamable.New(srv, streamable.ListenerConfig{Addr: "127.0.0.1:0"})
	require.NoError(t, err)
	require.NoError(t, s.Listen())
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
		require.ErrorIs(t, <-done, streamable.ErrServerClosed)
	})
	return s.URL()
}

// The helper over Streamable HTTP against the real server, which refuses a tasks/* request
// whose Mcp-Name is not its taskId (-32020): input answered, failed, cancelled, listened to,
// unknown. Each wait is bounded by the test's deadline, never by a sleep.
func TestTasksOverHTTP(t *testing.T) {
	url := serveHTTP(t, tasksServer(t, tasks.Options{PollInterval: 50 * time.Millisecond}))
	var mu sync.Mutex
	var asked []string
	c := connect(t, url, Config{Era: EraModern, Elicitation: accept(`{"confirm":true}`, &asked, &mu)})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	_, h, err := c.CallToolTask(ctx, "confirm_delete", map[string]string{"filename": "b.txt"})
	require.NoError(t, err)
	d, err := h.Await(ctx)
	require.NoError(t, err)
	assert.Equal(t, TaskCompleted, d.Status)
	assert.JSONEq(t, `[{"type":"text","text":"Deleted b.txt"}]`, string(d.Result.Content))
	assert.Equal(t, []string{"Delete b.txt?"}, asked)

	_, h, err = c.CallToolTask(ctx, "protocol_error_job", nil)
	require.NoError(t, err)
	d, err = h.Await(ctx)
	require.NoError(t, err)
	require.ErrorIs(t, d.Err(), ErrTaskFailed)

	_, h, err = c.CallToolTask(ctx, "slow_compute", map[string]any{"seconds": 60})
	require.NoError(t, err)
	require.NoError(t, h.Cancel(ctx))
	d, err = h.Await(ctx)
	require.NoError(t, err)
	assert.Equal(t, TaskCancelled, d.Status)

	_, h, err = c.CallToolTask(ctx, "failing_job", nil)
	require.NoError(t, err)
	d, err = h.AwaitListen(ctx)
	require.NoError(t, err)
	assert.Equal(t, TaskCompleted, d.Status)
	assert.True(t, d.Result.IsError)

	_, err = c.Task("tasks-conformance-nonexistent-12345").Get(ctx)
	require.ErrorIs(t, err, ErrUnknownTask)
	_, err = c.CallTool(ctx, "failing_job", nil)
	require.ErrorIs(t, err, ErrTasksRequired)
}

// An initialize-era connection has no tasks: CallToolTask is a plain call answered with the
// result, and tasks/* requests fail at once with ErrTasksNotDefined.
func TestTasksLegacy(t *testing.T) {
	url := serveHTTP(t, tasksServer(t, tasks.Options{}))
	c := connect(t, url, Config{Era: EraLegacy})
	ctx := context.Background()
	res, h, err := c.CallToolTask(ctx, "slow_compute", map[string]any{"seconds": 0, "label": "old"})
	require.NoError(t, err)
	assert.Nil(t, h)
	assert.JSONEq(t, `[{"type":"text","text":"Computed old in 0 s"}]`, string(res.Content))

	h = c.Task("t1")
	_, err = h.Get(ctx)
	assert.ErrorIs(t, err, ErrTasksNotDefined)
	assert.ErrorIs(t, h.Update(ctx, map[string]json.RawMessage{}), ErrTasksNotDefined)
	assert.EqualError(t, h.Cancel(ctx), "client: tasks are not defined on an initialize-era connection: tasks/cancel")
	_, err = h.Await(ctx)
	assert.ErrorIs(t, err, ErrTasksNotDefined)
	_, err = h.AwaitListen(ctx)
	assert.EqualError(t, err, "client: tasks are not defined on an initialize-era connection: await")
}

// Over stdio (headers are HTTP only): a task with an input request answered, and
// AwaitListen's subscription on the same pipe.
func TestTasksOverStdio(t *testing.T) {
	srv := tasksServer(t, tasks.Options{PollInterval: 50 * time.Millisecond})
	var mu sync.Mutex
	var asked []string
	c := stdioClient(t, pipeServer(t, srv, stdioOptions{}), Config{Era: EraModern, Elicitation: accept(`{"name":"partial-x","confirm":true}`, &asked, &mu)})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, h, err := c.CallToolTask(ctx, "multi_input", nil)
	require.NoError(t, err)
	d, err := h.Await(ctx)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"text","text":"Received partial-x and partial-x"}]`, string(d.Result.Content))
	assert.ElementsMatch(t, []string{"Your first input", "Your second input"}, asked)

	_, h, err = c.CallToolTask(ctx, "failing_job", nil)
	require.NoError(t, err)
	d, err = h.AwaitListen(ctx)
	require.NoError(t, err)
	assert.True(t, d.Result.IsError)
}
