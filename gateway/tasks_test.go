package gateway

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fixtures"
	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/memstore"
)

// tasksBackend serves the conformance fixtures with the tasks extension over a memory
// store, on a loopback port.
func tasksBackend(t *testing.T) string {
	t.Helper()
	url, _ := stoppableTasksBackend(t)
	return url
}

// stoppableTasksBackend is tasksBackend with the function that stops serving it.
func stoppableTasksBackend(t *testing.T) (url string, stop func()) {
	t.Helper()
	srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "tasks-backend", Version: "1"}, nil)
	require.NoError(t, err)
	require.NoError(t, fixtures.Register(srv, "conformance"))
	store := memstore.New(memstore.Config{})
	x, err := tasks.New(store, tasks.Options{Tools: fixtures.TaskPolicies()})
	require.NoError(t, err)
	x.Register(srv)
	t.Cleanup(func() {
		require.NoError(t, x.Close())
		require.NoError(t, store.Close())
	})
	return serveHTTP(t, srv, "", nil)
}

// taskCaller dials a gateway as a 2026-07-28 caller that answers elicitations with accept.
func taskCaller(t *testing.T, url string) *client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, url, client.Config{Era: client.EraModern,
		Elicitation: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{"action":"accept","content":{"confirm":true,"name":"Ada"}}`), nil
		}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// A tasks-capable backend's tasks pass through: the Gateway serves the extension, a call
// declaring it becomes the backend's task under the Gateway's id, which tasks/get,
// tasks/update and tasks/cancel reach; a call that does not declare it is the backend's
// synchronous answer, or its -32021.
func TestTasksPassThrough(t *testing.T) {
	_, gw := startGateway(t, Config{Backends: []Backend{{Name: "tk", URL: tasksBackend(t)}}})
	c := taskCaller(t, gw)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	d, err := c.Discover(ctx)
	require.NoError(t, err)
	assert.Contains(t, string(d.Capabilities), `"io.modelcontextprotocol/tasks"`)

	res, task, err := c.CallToolTask(ctx, "slow_compute", map[string]any{"seconds": 0, "label": "x"})
	require.NoError(t, err)
	require.Nil(t, res)
	require.NotNil(t, task)
	assert.True(t, strings.Contains(task.ID, ".tk."), "the Gateway's id names the backend: %s", task.ID)
	done, err := task.Await(ctx)
	require.NoError(t, err)
	require.Equal(t, client.TaskCompleted, done.Status)
	assert.Equal(t, task.ID, done.ID)
	assert.JSONEq(t, `[{"type":"text","text":"Computed x in 0 s"}]`, string(done.Result.Content))

	t.Run("input inside the task", func(t *testing.T) {
		_, task, err := c.CallToolTask(ctx, "confirm_delete", map[string]any{"filename": "a.txt"})
		require.NoError(t, err)
		require.NotNil(t, task)
		done, err := task.Await(ctx) // answers the task's elicitation with tasks/update
		require.NoError(t, err)
		require.Equal(t, client.TaskCompleted, done.Status)
		assert.JSONEq(t, `[{"type":"text","text":"Deleted a.txt"}]`, string(done.Result.Content))
	})
	t.Run("a round before the task", func(t *testing.T) {
		_, task, err := c.CallToolTask(ctx, "test_tool_with_task", nil)
		require.NoError(t, err)
		require.NotNil(t, task, "the answered retry becomes a task")
		done, err := task.Await(ctx)
		require.NoError(t, err)
		assert.JSONEq(t, `[{"type":"text","text":"Hello, Ada, from a task!"}]`, string(done.Result.Content))
	})
	t.Run("cancel", func(t *testing.T) {
		_, task, err := c.CallToolTask(ctx, "slow_compute", map[string]any{"seconds": 60})
		require.NoError(t, err)
		require.NoError(t, task.Cancel(ctx))
		done, err := task.Await(ctx)
		require.NoError(t, err)
		assert.Equal(t, client.TaskCancelled, done.Status)
	})
	t.Run("failed", func(t *testing.T) {
		_, task, err := c.CallToolTask(ctx, "protocol_error_job", nil)
		require.NoError(t, err)
		done, err := task.Await(ctx)
		require.NoError(t, err)
		require.Equal(t, client.TaskFailed, done.Status)
		assert.Equal(t, "The job hit a protocol error, as it always does", done.Error.Message)
	})
	t.Run("without the extension", func(t *testing.T) {
		res, err := c.CallTool(ctx, "slow_compute", map[string]any{"seconds": 0, "label": "y"})
		require.NoError(t, err)
		assert.JSONEq(t, `[{"type":"text","text":"Computed y in 0 s"}]`, string(res.Content))
		_, err = c.CallTool(ctx, "failing_job", nil)
		require.ErrorIs(t, err, client.ErrTasksRequired)
	})
	t.Run("unknown and forged ids", func(t *testing.T) {
		for _, id := range []string{"nope", "AAAAAAAAAAAAAAAAAAAAAA.tk.x", strings.Replace(task.ID, ".tk.", ".zz.", 1), task.ID + "x"} {
			_, err := c.Task(id).Get(ctx)
			require.ErrorIs(t, err, client.ErrUnknownTask, id)
		}
	})
}

// Two replicas sharing TaskIDKeys serve one task: created through one, read through the
// other; a replica with other keys does not know it.
func TestTasksAcrossReplicas(t *testing.T) {
	backend := tasksBackend(t)
	keys := [][]byte{[]byte(strings.Repeat("k", MinTaskIDKeyBytes))}
	_, a := startGateway(t, Config{Backends: []Backend{{Name: "tk", URL: backend}}, TaskIDKeys: keys})
	_, b := startGateway(t, Config{Backends: []Backend{{Name: "tk", URL: backend}}, TaskIDKeys: keys})
	_, other := startGateway(t, Config{Backends: []Backend{{Name: "tk", URL: backend}}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, task, err := taskCaller(t, a).CallToolTask(ctx, "slow_compute", map[string]any{"seconds": 0, "label": "r"})
	require.NoError(t, err)
	done, err := taskCaller(t, b).Task(task.ID).Await(ctx)
	require.NoError(t, err)
	assert.Equal(t, client.TaskCompleted, done.Status)
	_, err = taskCaller(t, other).Task(task.ID).Get(ctx)
	require.ErrorIs(t, err, client.ErrUnknownTask)
}

// A task id is bound to the caller's principal, and verifies under every key, the first
// signing: a rotation serves the ids of the old key.
func TestTaskIDs(t *testing.T) {
	g := &Gateway{}
	k1, k2 := []byte(strings.Repeat("1", 32)), []byte(strings.Repeat("2", 32))
	require.NoError(t, g.SetTaskIDKeys([][]byte{k1}))
	id := g.taskIDs.issue("alice", "web", "t-1")
	b, own, ok := g.taskIDs.open("alice", id)
	require.True(t, ok)
	assert.Equal(t, []string{"web", "t-1"}, []string{b, own})
	_, _, ok = g.taskIDs.open("bob", id)
	assert.False(t, ok, "another principal's")
	_, _, ok = g.taskIDs.open("alice", strings.Replace(id, ".web.", ".api.", 1))
	assert.False(t, ok, "another backend's")

	require.NoError(t, g.SetTaskIDKeys([][]byte{k2, k1}))
	_, _, ok = g.taskIDs.open("alice", id)
	assert.True(t, ok, "the old key still verifies")
	require.NoError(t, g.SetTaskIDKeys([][]byte{k2}))
	_, _, ok = g.taskIDs.open("alice", id)
	assert.False(t, ok, "a key no longer listed")

	require.ErrorIs(t, g.SetTaskIDKeys([][]byte{[]byte("short")}), ErrInvalidConfig)
	assert.False(t, carriedTaskID("has space"))
	assert.False(t, carriedTaskID(strings.Repeat("x", maxBackendTaskID+1)))
	assert.True(t, carriedTaskID("abc-_.~"))
}

// On the wire: a tools/call declaring the extension answers a CreateTaskResult under the
// Gateway's id; tasks/get of a forged id is the unknown task's error, byte for byte.
func TestTasksWire(t *testing.T) {
	_, gw := startGateway(t, Config{Backends: []Backend{{Name: "tk", URL: tasksBackend(t)}}})
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	status, body := post(t, gw, "tools/call", "slow_compute", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow_compute","arguments":{"seconds":0},`+meta+`}}`)
	require.Equal(t, 200, status, body)
	var created struct {
		Result struct {
			ResultType, TaskID, Status string
			Meta                       json.RawMessage `json:"_meta"`
		}
	}
	require.NoError(t, json.Unmarshal([]byte(body), &created), body)
	assert.Equal(t, "task", created.Result.ResultType)
	assert.Regexp(t, `^[A-Za-z0-9_-]{22}\.tk\.[A-Za-z0-9_-]+$`, created.Result.TaskID)
	assert.JSONEq(t, `{"io.modelcontextprotocol/serverInfo":{"name":"gateway","version":"1"}}`, string(created.Result.Meta), "the Gateway's _meta, not the backend's")

	forged := "AAAAAAAAAAAAAAAAAAAAAA.tk.x"
	status, body = post(t, gw, "tasks/get", forged, `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"`+forged+`",`+meta+`}}`)
	assert.Equal(t, 200, status)
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params: unknown task"}}`, body)
}

// A call that declares the tasks extension and that the backend answers at once keeps the
// backend's _meta members: the Gateway's serverInfo replaces only the backend's.
func TestTasksImmediateResultKeepsMeta(t *testing.T) {
	srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "tasks-backend", Version: "1"}, nil)
	require.NoError(t, err)
	fastmcp.AddTool(srv, fastmcp.Tool{Name: "tagged", Description: "answers at once, with _meta"},
		func(context.Context, *fastmcp.Request, struct{}) (fastmcp.ToolResult, error) {
			return fastmcp.ToolResult{Text: "now", Meta: json.RawMessage(`{"vendor.example/k":"v"}`)}, nil
		})
	store := memstore.New(memstore.Config{})
	x, err := tasks.New(store, tasks.Options{})
	require.NoError(t, err)
	x.Register(srv)
	t.Cleanup(func() {
		require.NoError(t, x.Close())
		require.NoError(t, store.Close())
	})
	url, _ := serveHTTP(t, srv, "", nil)
	_, gw := startGateway(t, Config{Backends: []Backend{{Name: "tk", URL: url}}})
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	status, body := post(t, gw, "tools/call", "tagged", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tagged","arguments":{},`+meta+`}}`)
	require.Equal(t, 200, status, body)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"now"}],"_meta":{"vendor.example/k":"v","io.modelcontextprotocol/serverInfo":{"name":"gateway","version":"1"}}}}`, body)
}
