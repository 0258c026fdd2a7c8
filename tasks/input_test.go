package tasks_test

import (
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks"
)

// Input inside a task: the handler's InputRequired becomes input_required with its
// inputRequests; tasks/update stores accepted answers before the ack (strays ignored, a
// partial answer leaves the rest outstanding), and the rerun gets every answer.
func TestInputRequiredInsideATask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, tasks.Options{Tools: testPolicies()}, testTools(newGate()))
		h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask2",` + metaTasks + `}}`)
		synctest.Wait()
		get := `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"task-1",` + metaTasks + `}}`
		asked := h.send(get)
		requireResult(t, "GetTaskResult", asked)
		form := `{"mode":"form","message":"Name %s","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}`
		reqA := `"a":{"method":"elicitation/create","params":` + sprintf(form, "a") + `}`
		reqB := `"b":{"method":"elicitation/create","params":` + sprintf(form, "b") + `}`
		assert.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","taskId":"task-1","status":"input_required","statusMessage":"Input required",`+
			`"createdAt":"`+t0+`","lastUpdatedAt":"`+t0+`","ttlMs":3600000,"pollIntervalMs":250,`+
			`"inputRequests":{`+reqA+`,`+reqB+`},`+serverMeta+`}}`, asked)

		// A stray key and a malformed stray value are ignored; a is accepted.
		ack := h.send(`{"jsonrpc":"2.0","id":3,"method":"tasks/update","params":{"taskId":"task-1","inputResponses":{` +
			`"unknown-key":{"ignored":true},"a":{"action":"accept","content":{"name":"partial-1"}}},` + metaTasks + `}}`)
		requireResult(t, "EmptyAck", ack)
		assert.Equal(t, `{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete",`+serverMeta+`}}`, ack)
		partial := h.send(get) // at once: the answer was stored before the ack
		requireResult(t, "GetTaskResult", partial)
		assert.Contains(t, partial, `"status":"input_required"`)
		assert.Contains(t, partial, `"inputRequests":{`+reqB+`}`)
		assert.NotContains(t, partial, `"a":{`)

		// Answering a again changes nothing; b completes the set and the task reruns.
		h.send(`{"jsonrpc":"2.0","id":4,"method":"tasks/update","params":{"taskId":"task-1","inputResponses":{"a":{"action":"accept","content":{"name":"late"}}},` + metaTasks + `}}`)
		assert.Equal(t, partial, h.send(get))
		h.send(`{"jsonrpc":"2.0","id":5,"method":"tasks/update","params":{"taskId":"task-1","inputResponses":{"b":{"action":"accept","content":{"name":"partial-2"}}},` + metaTasks + `}}`)
		synctest.Wait()
		done := h.send(get)
		requireResult(t, "GetTaskResult", done)
		assert.Contains(t, done, `"status":"completed"`)
		assert.Contains(t, done, `"text":"a=partial-1 b=partial-2 "`)

		stored, err := h.store.Get(t.Context(), "task-1")
		require.NoError(t, err)
		assert.Equal(t, []string{"a", "b"}, sortedCopy(stored.Keys), "every key issued, once")
		assert.Equal(t, 2, stored.Attempt, "one run asked, the rerun finished")
	})
}

// A retry of a multi round-trip request that became a task brings its answers into the
// task: the rerun sees them (test_tool_with_task's flow).
func TestAnswersBeforeTheTaskReachTheRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, tasks.Options{Tools: map[string]tasks.Policy{"ask2": tasks.Required}}, testTools(newGate()))
		created := h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask2","inputResponses":{` +
			`"a":{"action":"accept","content":{"name":"Alice"}},"b":{"action":"accept","content":{"name":"Bob"}}},` + metaTasks + `}}`)
		requireResult(t, "CreateTaskResult", created)
		assert.NotContains(t, created, "requestState")
		synctest.Wait()
		done := h.send(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"task-1",` + metaTasks + `}}`)
		assert.Contains(t, done, `"text":"a=Alice b=Bob "`)
	})
}

// tasks/update on a task that is not waiting for input is an ack that changes nothing, and
// its params are checked.
func TestUpdateOutsideInputRequired(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate()
		h := newHarness(t, tasks.Options{Tools: testPolicies()}, testTools(g))
		h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold",` + metaTasks + `}}`)
		<-g.started
		ack := h.send(`{"jsonrpc":"2.0","id":2,"method":"tasks/update","params":{"taskId":"task-1","inputResponses":{"x":{}},` + metaTasks + `}}`)
		assert.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete",`+serverMeta+`}}`, ack)
		bad := h.send(`{"jsonrpc":"2.0","id":3,"method":"tasks/update","params":{"taskId":"task-1","inputResponses":[],` + metaTasks + `}}`)
		requireErrorObject(t, "InvalidParamsError", bad)
		assert.Equal(t, `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: inputResponses must be an object"}}`, bad)
		g.open()
	})
}
