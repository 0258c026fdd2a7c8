package tasks_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/internal/wireschema"
	"github.com/fastmcp-go/fastmcp/streamable"
	"github.com/fastmcp-go/fastmcp/tasks"
)

// Over Streamable HTTP, tasks/get, tasks/update and tasks/cancel carry Mcp-Name = taskId:
// missing or different is 400 with -32020; -32021 is 400; an unknown task is a 200 JSON-RPC
// error; the removed methods are 404 (and need no Mcp-Name).
func TestHTTPMcpNameMirrorsTaskID(t *testing.T) {
	g := newGate()
	h := newHarness(t, tasks.Options{Tools: testPolicies()}, testTools(g))
	defer g.open()
	handler, err := streamable.NewHandler(h.srv, streamable.Config{})
	require.NoError(t, err)
	ts := httptest.NewServer(handler)
	defer func() {
		ts.Close()
		require.NoError(t, handler.Close(context.Background()))
	}()

	post := func(method, name, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", method)
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
		resp, err := ts.Client().Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}

	status, created := post("tools/call", "hold", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold",`+metaTasks+`}}`)
	require.Equal(t, http.StatusOK, status, created)
	requireResult(t, "CreateTaskResult", created)
	<-g.started

	get := `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"task-1",` + metaTasks + `}}`
	status, got := post("tasks/get", "task-1", get)
	assert.Equal(t, http.StatusOK, status)
	requireResult(t, "GetTaskResult", got)
	assert.Contains(t, got, `"taskId":"task-1","status":"working"`)

	for _, name := range []string{"sep-2663-wrong-task-id-for-routing-header-mismatch", ""} {
		status, got := post("tasks/get", name, get)
		assert.Equal(t, http.StatusBadRequest, status)
		wireschema.RequireValid(t, "HeaderMismatchError", []byte(got))
		assert.Contains(t, got, `"code":-32020`)
	}
	status, got = post("tasks/get", "task-1", `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"task-1",`+metaNone+`}}`)
	assert.Equal(t, http.StatusBadRequest, status)
	wireschema.RequireValid(t, "MissingRequiredClientCapabilityError", []byte(got))

	status, got = post("tasks/get", "nope", `{"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"taskId":"nope",`+metaTasks+`}}`)
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, `{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params: unknown task"}}`, got)

	status, got = post("tasks/result", "", `{"jsonrpc":"2.0","id":5,"method":"tasks/result","params":{"taskId":"task-1",`+metaTasks+`}}`)
	assert.Equal(t, http.StatusNotFound, status)
	assert.Contains(t, got, `"code":-32601`)

	status, got = post("tasks/cancel", "task-1", `{"jsonrpc":"2.0","id":6,"method":"tasks/cancel","params":{"taskId":"task-1",`+metaTasks+`}}`)
	assert.Equal(t, http.StatusOK, status)
	requireResult(t, "EmptyAck", got)
	status, got = post("tasks/get", "task-1", get)
	assert.Equal(t, http.StatusOK, status)
	assert.Contains(t, got, `"status":"cancelled"`)
}
