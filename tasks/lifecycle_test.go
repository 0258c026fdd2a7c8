package tasks_test

import (
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/internal/wireschema"
	"github.com/fastmcp-go/fastmcp/tasks"
)

func TestDiscoverAdvertisesTheExtension(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, tasks.Options{Tools: testPolicies()}, testTools(newGate()))
		got := h.send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + metaNone + `}}`)
		wireschema.RequireValid(t, "DiscoverResultResponse", []byte(got))
		assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],`+
			`"capabilities":{"logging":{},"tools":{"listChanged":true},"extensions":{"io.modelcontextprotocol/tasks":{}}},`+
			`"ttlMs":0,"cacheScope":"private",`+serverMeta+`}}`, got)
	})
}

// A task from create to completion: the flat CreateTaskResult once the task is stored,
// tasks/get while it works and once it completed, with the handler's result inlined.
func TestTaskLifecycleWire(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate()
		h := newHarness(t, tasks.Options{Tools: testPolicies()}, testTools(g))
		created := h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold",` + metaTasks + `}}`)
		requireResult(t, "CreateTaskResult", created)
		assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"task-1","status":"working",`+
			`"statusMessage":"Task accepted","createdAt":"`+t0+`","lastUpdatedAt":"`+t0+`","ttlMs":3600000,"pollIntervalMs":250,`+serverMeta+`}}`, created)

		<-g.started
		working := h.send(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"task-1",` + metaTasks + `}}`)
		requireResult(t, "GetTaskResult", working)
		assert.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","taskId":"task-1","status":"working",`+
			`"statusMessage":"Task accepted","createdAt":"`+t0+`","lastUpdatedAt":"`+t0+`","ttlMs":3600000,"pollIntervalMs":250,`+serverMeta+`}}`, working)

		g.open()
		synctest.Wait() // the runner stored the outcome and waits for work again
		done := h.send(`{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"task-1",` + metaTasks + `}}`)
		requireResult(t, "GetTaskResult", done)
		assert.Equal(t, `{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","taskId":"task-1","status":"completed",`+
			`"createdAt":"`+t0+`","lastUpdatedAt":"`+t0+`","ttlMs":3600000,"pollIntervalMs":250,`+
			`"result":{"resultType":"complete","content":[{"type":"text","text":"held task-1"}],`+serverMeta+`},`+serverMeta+`}}`, done)
	})
}

// A tool not listed is synchronous even for a declaring client; an Optional one is
// synchronous for a client that does not declare the extension.
func TestSyncAndOptionalWithoutDeclaration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate()
		g.open()
		h := newHarness(t, tasks.Options{Tools: testPolicies()}, testTools(g))
		echo := h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"task":{"ttl":60000},` + metaTasks + `}}`)
		wireschema.RequireValid(t, "CallToolResultResponse", []byte(echo))
		assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"hi"}],`+serverMeta+`}}`, echo)
		hold := h.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hold",` + metaNone + `}}`)
		wireschema.RequireValid(t, "CallToolResultResponse", []byte(hold))
		assert.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"held "}],`+serverMeta+`}}`, hold)
	})
}

// A Required tool refuses an undeclaring client with -32021 and its requiredCapabilities;
// refused calls (that one, invalid arguments, an unknown tool) create no task.
func TestRequiredRefusalsCreateNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, tasks.Options{Tools: testPolicies()}, testTools(newGate()))
		refused := h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boom",` + metaNone + `}}`)
		wireschema.RequireValid(t, "MissingRequiredClientCapabilityError", []byte(refused))
		assert.Equal(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"Missing required client capability",`+
			`"data":{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`, refused)

		invalid := h.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"strict","arguments":{"n":"x"},` + metaTasks + `}}`)
		wireschema.RequireValid(t, "CallToolResultResponse", []byte(invalid))
		assert.Contains(t, invalid, `"isError":true`)
		assert.NotContains(t, invalid, `"taskId"`)

		unknown := h.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope",` + metaTasks + `}}`)
		assert.Equal(t, `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Unknown tool: nope"}}`, unknown)

		// The next task made is the first: none of the refused calls took an id.
		created := h.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"strict","arguments":{"n":1},` + metaTasks + `}}`)
		requireResult(t, "CreateTaskResult", created)
		assert.Contains(t, created, `"taskId":"task-1"`)
		synctest.Wait()
		_, err := h.store.Get(t.Context(), "task-2")
		require.ErrorIs(t, err, tasks.ErrNotFound)
	})
}

// A JSON-RPC error from the handler fails the task with that error inlined; a panic fails it
// with -32603 and the process goes on.
func TestFailedTasks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, tasks.Options{Tools: testPolicies()}, testTools(newGate()))
		h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boom",` + metaTasks + `}}`)
		h.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"panics",` + metaTasks + `}}`)
		synctest.Wait()
		boom := h.send(`{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"task-1",` + metaTasks + `}}`)
		requireResult(t, "GetTaskResult", boom)
		assert.Equal(t, `{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","taskId":"task-1","status":"failed","statusMessage":"boom",`+
			`"createdAt":"`+t0+`","lastUpdatedAt":"`+t0+`","ttlMs":3600000,"pollIntervalMs":250,`+
			`"error":{"code":-32000,"message":"boom","data":{"why":"test"}},`+serverMeta+`}}`, boom)
		panicked := h.send(`{"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"taskId":"task-2",` + metaTasks + `}}`)
		requireResult(t, "GetTaskResult", panicked)
		assert.Contains(t, panicked, `"status":"failed","statusMessage":"Tool raised an exception"`)
		assert.Contains(t, panicked, `"error":{"code":-32603,"message":"Tool raised an exception"}`)
	})
}

// A panicking PolicyFunc answers the call -32603 and creates nothing; the process goes on.
func TestPolicyPanic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, tasks.Options{Tools: map[string]tasks.Policy{
			"echo": tasks.PolicyFunc(func(*fastmcp.Request) tasks.Mode { panic("policy bug") }),
		}}, testTools(newGate()))
		got := h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},` + metaTasks + `}}`)
		requireErrorObject(t, "InternalError", got)
		assert.Equal(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Task policy raised an exception"}}`, got)
	})
}
