package tasks_test

import (
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"

	"github.com/fastmcp-go/fastmcp/tasks"
)

// A taskId written with JSON escapes names the task its text names: "\u0074ask-1" is
// "task-1" on tasks/get, tasks/update and tasks/cancel, as on the wire any JSON string is.
func TestEscapedTaskID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate()
		h := newHarness(t, tasks.Options{Tools: testPolicies()}, testTools(g))
		defer g.open()
		h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask2",` + metaTasks + `}}`)
		synctest.Wait()

		got := h.send(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"\u0074ask-1",` + metaTasks + `}}`)
		requireResult(t, "GetTaskResult", got)
		assert.Contains(t, got, `"taskId":"task-1","status":"input_required"`)

		ack := h.send(`{"jsonrpc":"2.0","id":3,"method":"tasks/update","params":{"taskId":"task\u002d1","inputResponses":{` +
			`"a":{"action":"accept","content":{"name":"A"}},"b":{"action":"accept","content":{"name":"B"}}},` + metaTasks + `}}`)
		requireResult(t, "EmptyAck", ack)
		synctest.Wait()
		done := h.send(`{"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"taskId":"task-\u0031",` + metaTasks + `}}`)
		assert.Contains(t, done, `"status":"completed"`, "the update reached task-1")
		assert.Contains(t, done, `"text":"a=A b=B "`)

		h.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"hold",` + metaTasks + `}}`)
		<-g.started
		ack = h.send(`{"jsonrpc":"2.0","id":6,"method":"tasks/cancel","params":{"taskId":"\u0074\u0061\u0073\u006b\u002d\u0032",` + metaTasks + `}}`)
		requireResult(t, "EmptyAck", ack)
		got = h.send(`{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":{"taskId":"task-2",` + metaTasks + `}}`)
		assert.Contains(t, got, `"taskId":"task-2","status":"cancelled"`, "the cancel reached task-2")

		unknown := h.send(`{"jsonrpc":"2.0","id":8,"method":"tasks/get","params":{"taskId":"\u0074ask-3",` + metaTasks + `}}`)
		assert.Equal(t, `{"jsonrpc":"2.0","id":8,"error":{"code":-32602,"message":"Invalid params: unknown task"}}`, unknown)
	})
}
