package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	santhosh "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/internal/wireschema"
)

// taskMeta is the _meta of a request that declares the tasks extension and elicitation.
const taskMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}`

// taskView is what the tests read of a CreateTaskResult or a GetTaskResult.
type taskView struct {
	ResultType    string          `json:"resultType"`
	TaskID        string          `json:"taskId"`
	Status        string          `json:"status"`
	InputRequests json.RawMessage `json:"inputRequests"`
	Result        struct {
		Content []struct{ Text string } `json:"content"`
	} `json:"result"`
}

// taskRPC sends one 2026-07-28 request over HTTP and returns the reply, which must be a 200
// JSON-RPC result; def is the extension's definition it must match (CreateTaskResult,
// GetTaskResult, EmptyAck), checked with the core schema's JSONRPCResultResponse and Result.
func taskRPC(t *testing.T, url, method, name, body, def string) taskView {
	t.Helper()
	code, reply := post(t, url, method, name, body)
	require.Equal(t, 200, code, reply)
	requireTaskResult(t, def, reply)
	var env struct{ Result taskView }
	require.NoError(t, json.Unmarshal([]byte(reply), &env), reply)
	return env.Result
}

func createReport(t *testing.T, url, id, args string) string {
	t.Helper()
	v := taskRPC(t, url, "tools/call", "report",
		`{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"report","arguments":`+args+`,`+taskMeta+`}}`, "CreateTaskResult")
	require.Equal(t, "task", v.ResultType)
	require.Equal(t, "working", v.Status)
	return v.TaskID
}

func getTask(t *testing.T, url, task string) taskView {
	t.Helper()
	v := taskRPC(t, url, "tasks/get", task, `{"jsonrpc":"2.0","id":"g","method":"tasks/get","params":{"taskId":"`+task+`",`+taskMeta+`}}`, "GetTaskResult")
	require.Equal(t, task, v.TaskID)
	return v
}

func updateTask(t *testing.T, url, task, responses string) {
	t.Helper()
	taskRPC(t, url, "tasks/update", task, `{"jsonrpc":"2.0","id":"u","method":"tasks/update","params":{"taskId":"`+task+`","inputResponses":`+responses+`,`+taskMeta+`}}`, "EmptyAck")
}

func cancelTask(t *testing.T, url, task string) {
	t.Helper()
	taskRPC(t, url, "tasks/cancel", task, `{"jsonrpc":"2.0","id":"c","method":"tasks/cancel","params":{"taskId":"`+task+`",`+taskMeta+`}}`, "EmptyAck")
}

// approval is the answer to report's approve question.
const approval = `{"approve":{"action":"accept","content":{"approve":true}}}`

// waitStatus polls tasks/get every 50 ms until the task's status is want, failing at the
// deadline with the last status seen.
func waitStatus(t *testing.T, url, task, want string, within time.Duration) taskView {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		v := getTask(t, url, task)
		if v.Status == want {
			return v
		}
		require.Falsef(t, time.Now().After(deadline), "task %s is still %s after %v (want %s)", task, v.Status, within, want)
		time.Sleep(50 * time.Millisecond) // a poll interval, bounded by the deadline above
	}
}

// The extension's shapes, from the tasks package's copy of its schema.
var (
	taskSchemaOnce sync.Once
	taskSchemas    map[string]*santhosh.Schema
	taskSchemaErr  error
)

func requireTaskResult(t *testing.T, def, msg string) {
	t.Helper()
	wireschema.RequireValid(t, "JSONRPCResultResponse", []byte(msg))
	var env struct{ Result json.RawMessage }
	require.NoError(t, json.Unmarshal([]byte(msg), &env))
	wireschema.RequireValid(t, "Result", env.Result)
	taskSchemaOnce.Do(func() {
		raw, err := os.ReadFile("../../tasks/testdata/tasks.schema.json")
		if err != nil {
			taskSchemaErr = err
			return
		}
		doc, err := santhosh.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			taskSchemaErr = err
			return
		}
		c := santhosh.NewCompiler()
		if taskSchemaErr = c.AddResource("mem:///tasks.schema.json", doc); taskSchemaErr != nil {
			return
		}
		taskSchemas = map[string]*santhosh.Schema{}
		for _, d := range []string{"CreateTaskResult", "GetTaskResult", "EmptyAck"} {
			s, err := c.Compile("mem:///tasks.schema.json#/$defs/" + d)
			if err != nil {
				taskSchemaErr = err
				return
			}
			taskSchemas[d] = s
		}
	})
	require.NoError(t, taskSchemaErr)
	v, err := santhosh.UnmarshalJSON(strings.NewReader(string(env.Result)))
	require.NoError(t, err)
	require.NoError(t, taskSchemas[def].Validate(v), "%s: %s", def, env.Result)
}
