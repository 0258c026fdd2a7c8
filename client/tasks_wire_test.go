package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/internal/wireschema"
)

// The spec's examples (tasks-extension.md §3): a CreateTaskResult and a completed tasks/get.
const (
	specTaskID  = "786512e2-9e0d-44bd-8f29-789f320fe840"
	specCreated = `{"resultType":"task","taskId":"` + specTaskID + `","status":"working","statusMessage":"The operation is now in progress.",` +
		`"createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:40:00Z","ttlMs":60000,"pollIntervalMs":5000}`
	specCompleted = `{"resultType":"complete","taskId":"` + specTaskID + `","status":"completed",` +
		`"createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:50:00Z","ttlMs":3600000,"pollIntervalMs":5000,` +
		`"result":{"content":[{"type":"text","text":"Hello, Luca!"}],"isError":false}}`
	// wireMeta is the _meta of a client named t 1 with an elicitation handler, declaring the
	// tasks extension.
	wireMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}},"extensions":{"io.modelcontextprotocol/tasks":{}}},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`
)

// wireHead is the head of a modern POST of method, mirroring name.
func wireHead(f *fakeServer, body []byte, method, name string) string {
	return "POST /mcp HTTP/1.1\r\n" +
		"Host: " + f.ln.Addr().String() + "\r\n" +
		"Content-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\n" +
		"Content-Length: " + strconv.Itoa(len(body)) + "\r\n" +
		"MCP-Protocol-Version: 2026-07-28\r\n" +
		"Mcp-Method: " + method + "\r\n" +
		"Mcp-Name: " + name
}

// The exact bytes of the extension's requests: the opt-in on one tools/call only, then
// tasks/get, tasks/update and tasks/cancel with Mcp-Name = taskId; the spec's answers read
// back into the handle and the detail.
func TestWireTasks(t *testing.T) {
	reqs := make(chan *fakeReq, 8)
	f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		reqs <- r
		var res string
		switch text(r.body, "method") {
		case "tools/call":
			res = specCreated
			if text(member(r.body, "params"), "name") == "echo" {
				res = `{"resultType":"complete","content":[]}`
			}
		case "tasks/get":
			res = specCompleted
		default:
			res = `{"resultType":"complete"}`
		}
		jsonResp(w, `{"jsonrpc":"2.0","id":`+idOf(r.body)+`,"result":`+res+`}`)
		return true
	})
	cfg := Config{Era: EraModern, ClientName: "t", ClientVersion: "1", Elicitation: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return nil, nil
	}}
	c := connect(t, f.url(), cfg)
	ctx := context.Background()

	res, h, err := c.CallToolTask(ctx, "deploy", []byte(`{"region":"eu"}`))
	require.NoError(t, err)
	require.Nil(t, res)
	r := <-reqs
	assert.Equal(t, wireHead(f, r.body, "tools/call", "deploy"), string(r.head))
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{"region":"eu"},`+wireMeta+`}}`, string(r.body))
	wireschema.RequireValid(t, "CallToolRequest", r.body)
	requireTaskSchema(t, "DeclaresTasks", r.body)
	assert.Equal(t, Task{ID: specTaskID, Status: TaskWorking, StatusMessage: "The operation is now in progress.",
		CreatedAt: time.Date(2025, 11, 25, 10, 30, 0, 0, time.UTC), LastUpdatedAt: time.Date(2025, 11, 25, 10, 40, 0, 0, time.UTC),
		TTL: time.Minute, PollInterval: 5 * time.Second}, h.Created)

	d, err := h.Get(ctx)
	require.NoError(t, err)
	r = <-reqs
	assert.Equal(t, wireHead(f, r.body, "tasks/get", specTaskID), string(r.head))
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"`+specTaskID+`",`+wireMeta+`}}`, string(r.body))
	requireTaskSchema(t, "GetTaskRequest", r.body)
	assert.Equal(t, TaskCompleted, d.Status)
	assert.Equal(t, time.Hour, d.TTL)
	assert.Equal(t, `[{"type":"text","text":"Hello, Luca!"}]`, string(d.Result.Content))
	assert.False(t, d.Result.IsError)
	assert.Equal(t, specCompleted, string(d.Raw))

	require.NoError(t, h.Update(ctx, map[string]json.RawMessage{"confirm": json.RawMessage(`{"action":"accept","content":{"confirm":true}}`)}))
	r = <-reqs
	assert.Equal(t, wireHead(f, r.body, "tasks/update", specTaskID), string(r.head))
	assert.Equal(t, `{"jsonrpc":"2.0","id":3,"method":"tasks/update","params":{"taskId":"`+specTaskID+`",`+
		`"inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}},`+wireMeta+`}}`, string(r.body))
	requireTaskSchema(t, "UpdateTaskRequest", r.body)

	require.NoError(t, h.Cancel(ctx))
	r = <-reqs
	assert.Equal(t, wireHead(f, r.body, "tasks/cancel", specTaskID), string(r.head))
	assert.Equal(t, `{"jsonrpc":"2.0","id":4,"method":"tasks/cancel","params":{"taskId":"`+specTaskID+`",`+wireMeta+`}}`, string(r.body))
	requireTaskSchema(t, "CancelTaskRequest", r.body)

	// A task id that is not plain ASCII travels in Mcp-Name base64-wrapped.
	require.NoError(t, c.Task("tâche").Cancel(ctx))
	r = <-reqs
	assert.Equal(t, "=?base64?dMOiY2hl?=", r.header("Mcp-Name"))

	// The opt-in was for those requests only.
	_, err = c.CallTool(ctx, "echo", nil)
	require.NoError(t, err)
	r = <-reqs
	assert.Contains(t, string(r.body), `"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},`)
	assert.NotContains(t, string(r.body), TasksExtension)
}

// member returns member key of obj (a helper for the fakes).
func member(obj []byte, key string) []byte {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(obj, &m)
	return m[key]
}

// What a client must refuse as an invalid response: a task for a request that cannot be one,
// and task answers without what their shape requires.
func TestTaskInvalidResponses(t *testing.T) {
	var answer atomic.Value
	f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		jsonResp(w, `{"jsonrpc":"2.0","id":`+idOf(r.body)+`,"result":`+answer.Load().(string)+`}`)
		return true
	})
	c := connect(t, f.url(), Config{Era: EraModern})
	ctx := context.Background()
	task := `"taskId":"t1","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttlMs":null`
	cases := []struct {
		name, answer string
		call         func() error
		want         string
	}{
		{"task for a plain CallTool", specCreated, func() error { _, err := c.CallTool(ctx, "x", nil); return err },
			`client: malformed response: tools/call answered with a task (resultType "task"), which only a tools/call declaring the tasks extension may get`},
		{"task for resources/read", specCreated, func() error { _, err := c.ReadResource(ctx, "test://r"); return err },
			`client: malformed response: resources/read answered with a task (resultType "task"), which only a tools/call declaring the tasks extension may get`},
		{"task for tasks/get", specCreated, func() error { _, err := c.Task(specTaskID).Get(ctx); return err },
			`client: malformed response: tasks/get answered with a task (resultType "task"), which only a tools/call declaring the tasks extension may get`},
		{"create without taskId", `{"resultType":"task","status":"working"}`, func() error { _, _, err := c.CallToolTask(ctx, "x", nil); return err },
			`client: malformed response: task answer without a taskId`},
		{"create with an unknown status", `{"resultType":"task",` + task + `,"status":"paused"}`, func() error { _, _, err := c.CallToolTask(ctx, "x", nil); return err },
			`client: malformed response: task t1 has status "paused"`},
		{"get without resultType", `{` + task + `,"status":"working"}`, func() error { _, err := c.Task("t1").Get(ctx); return err },
			`client: malformed response: task answer with resultType "", want "complete"`},
		{"get with another resultType", `{"resultType":"partial",` + task + `,"status":"working"}`, func() error { _, err := c.Task("t1").Get(ctx); return err },
			`client: malformed response: task answer with resultType "partial", want "complete"`},
		{"get of another task", `{"resultType":"complete",` + task + `,"status":"working"}`, func() error { _, err := c.Task("t2").Get(ctx); return err },
			`client: malformed response: tasks/get for t2 answered for t1`},
		{"completed without result", `{"resultType":"complete",` + task + `,"status":"completed"}`, func() error { _, err := c.Task("t1").Get(ctx); return err },
			`client: malformed response: task t1 is completed without a result object`},
		{"failed without error", `{"resultType":"complete",` + task + `,"status":"failed"}`, func() error { _, err := c.Task("t1").Get(ctx); return err },
			`client: malformed response: task t1 is failed without an error object`},
		{"input_required without inputRequests", `{"resultType":"complete",` + task + `,"status":"input_required","inputRequests":[]}`, func() error { _, err := c.Task("t1").Get(ctx); return err },
			`client: malformed response: task t1 is input_required without an inputRequests object`},
		{"ttlMs not an integer", `{"resultType":"complete",` + task[:len(task)-len("null")] + `1.5,"status":"working"}`, func() error { _, err := c.Task("t1").Get(ctx); return err },
			`client: malformed response: task: json: cannot unmarshal number 1.5 into Go struct field taskWire.ttlMs of type int64`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			answer.Store(tc.answer)
			err := tc.call()
			require.ErrorIs(t, err, ErrMalformed)
			assert.EqualError(t, err, tc.want)
		})
	}
}

// errors.Is names -32021 as ErrMissingCapability, and as ErrTasksRequired only when its data
// names the tasks extension.
func TestErrorIs(t *testing.T) {
	tasksData := json.RawMessage(`{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`)
	cases := []struct {
		name                string
		err                 *Error
		missing, needsTasks bool
	}{
		{"tasks required", &Error{Code: CodeMissingCapability, Data: tasksData}, true, true},
		{"elicitation required", &Error{Code: CodeMissingCapability, Data: json.RawMessage(`{"requiredCapabilities":{"elicitation":{}}}`)}, true, false},
		{"no data", &Error{Code: CodeMissingCapability}, true, false},
		{"another code", &Error{Code: CodeInvalidParams, Data: tasksData}, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var err error = tc.err
			assert.Equal(t, tc.missing, errors.Is(err, ErrMissingCapability))
			assert.Equal(t, tc.needsTasks, errors.Is(err, ErrTasksRequired))
			assert.False(t, errors.Is(err, ErrUnknownTask), "unknown task is told by the method, not the code")
		})
	}
}

// Await answers a key once even while the server's snapshot still shows it (updates are
// eventually consistent), and a request no handler answers ends it with ErrNoHandler.
func TestWireAwaitInput(t *testing.T) {
	task := `"taskId":"t1","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttlMs":null,"pollIntervalMs":50`
	ask := func(method string) string {
		return `{"resultType":"complete",` + task + `,"status":"input_required","inputRequests":{"k\u00e9":{"method":"` + method + `","params":{"message":"m"}}}}`
	}
	done := `{"resultType":"complete",` + task + `,"status":"completed","result":{"content":[]}}`
	var gets atomic.Int64
	var script atomic.Pointer[[]string] // the tasks/get answers, in order; the last repeats
	updates := make(chan string, 4)
	f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		res := `{"resultType":"complete"}`
		switch text(r.body, "method") {
		case "tasks/get":
			answers := *script.Load()
			res = answers[min(int(gets.Add(1))-1, len(answers)-1)]
		case "tasks/update":
			updates <- string(member(r.body, "params"))
		}
		jsonResp(w, `{"jsonrpc":"2.0","id":`+idOf(r.body)+`,"result":`+res+`}`)
		return true
	})
	var asked atomic.Int64
	c := connect(t, f.url(), Config{Era: EraModern, Elicitation: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		asked.Add(1)
		return json.RawMessage(`{"action":"decline"}`), nil
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	script.Store(&[]string{ask("elicitation/create"), ask("elicitation/create"), ask("elicitation/create"), done})
	d, err := c.Task("t1").Await(ctx)
	require.NoError(t, err)
	assert.Equal(t, TaskCompleted, d.Status)
	assert.Equal(t, int64(4), gets.Load())
	assert.Equal(t, int64(1), asked.Load(), "the key is answered once")
	require.Len(t, updates, 1)
	assert.JSONEq(t, `{"taskId":"t1","inputResponses":{"ké":{"action":"decline"}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",`+
		`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}},"extensions":{"io.modelcontextprotocol/tasks":{}}},`+
		`"io.modelcontextprotocol/clientInfo":{"name":"fastmcp-client","version":"0"}}}`, <-updates)

	gets.Store(0)
	script.Store(&[]string{ask("sampling/createMessage")})
	_, err = c.Task("t1").Await(ctx)
	require.ErrorIs(t, err, ErrNoHandler)
	assert.EqualError(t, err, `client: task t1 input request "ké" (sampling/createMessage): no handler for input request: sampling/createMessage`)
	assert.Empty(t, updates)
}
