package tasks_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/internal/wireschema"
	"github.com/fastmcp-go/fastmcp/tasks"
)

// A listen stream with notifications.taskIds gets the acknowledgement listing the caller's
// live tasks among them, then notifications/tasks with the full state at each change.
func TestListenNotifications(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate()
		h := newHarness(t, tasks.Options{Tools: testPolicies()}, testTools(g))
		h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold",` + metaTasks + `}}`)
		<-g.started

		sink := newListenSink()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan string)
		go func() {
			done <- string(h.srv.Dispatch(ctx, []byte(`{"jsonrpc":"2.0","id":"listen-7","method":"subscriptions/listen","params":{`+
				`"notifications":{"taskIds":["task-1","nope","task-1"]},`+metaTasks+`}}`), sink))
		}()
		<-sink.got
		ack := sink.messages()[0]
		wireschema.RequireValid(t, "SubscriptionsAcknowledgedNotification", []byte(ack))
		assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{`+
			`"_meta":{"io.modelcontextprotocol/subscriptionId":"listen-7"},"notifications":{"taskIds":["task-1"]}}}`, ack)

		g.open()
		<-sink.got
		note := sink.messages()[1]
		requireNotification(t, note)
		assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"task-1","status":"completed",`+
			`"createdAt":"`+t0+`","lastUpdatedAt":"`+t0+`","ttlMs":3600000,"pollIntervalMs":250,`+
			`"result":{"resultType":"complete","content":[{"type":"text","text":"held task-1"}],`+serverMeta+`},`+
			`"_meta":{"io.modelcontextprotocol/subscriptionId":"listen-7"}}}`, note)
		cancel()
		assert.Empty(t, <-done, "a stream the client left gets no reply")
	})
}

// taskIds on listen: -32021 for a request that does not declare the extension, -32602 past
// MaxListenTaskIDs ids or for a malformed list.
func TestListenFilterRefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, tasks.Options{Tools: testPolicies()}, testTools(newGate()))
		listen := func(meta, ids string) string {
			return string(h.srv.Dispatch(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{`+
				`"notifications":{"taskIds":`+ids+`},`+meta+`}}`), newListenSink()))
		}
		refused := listen(metaNone, `["a"]`)
		wireschema.RequireValid(t, "MissingRequiredClientCapabilityError", []byte(refused))
		assert.Equal(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"Missing required client capability",`+
			`"data":{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`, refused)

		ids := `["` + strings.Repeat(`x","`, tasks.MaxListenTaskIDs) + `x"]`
		many := listen(metaTasks, ids)
		requireErrorObject(t, "InvalidParamsError", many)
		assert.Equal(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: notifications.taskIds lists more than 100 task ids"}}`, many)
		// Exactly 100 ids are admitted: the stream opens (its acknowledgement lists none of
		// them, as none names a task) and ends when the client leaves.
		sink := newListenSink()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan []byte)
		go func() {
			done <- h.srv.Dispatch(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{`+
				`"notifications":{"taskIds":["`+strings.Repeat(`x","`, tasks.MaxListenTaskIDs-1)+`x"]},`+metaTasks+`}}`), sink)
		}()
		<-sink.got
		assert.Contains(t, sink.messages()[0], `"notifications":{"taskIds":[]}`)
		cancel()
		assert.Nil(t, <-done)
		for _, bad := range []string{`"a"`, `[1]`} {
			got := listen(metaTasks, bad)
			assert.Equal(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: notifications.taskIds must be an array of task ids"}}`, got)
		}
	})
}

// Another principal's task ids are left out of the acknowledgement, as unknown ones are.
func TestListenScopedToThePrincipal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate()
		h := newHarness(t, tasks.Options{Tools: testPolicies()}, testTools(g))
		alice := fastmcp.WithIdentity(context.Background(), &fastmcp.Identity{Principal: "alice"})
		h.sendCtx(alice, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold",`+metaTasks+`}}`)
		<-g.started
		bob, cancel := context.WithCancel(fastmcp.WithIdentity(context.Background(), &fastmcp.Identity{Principal: "bob"}))
		sink := newListenSink()
		done := make(chan []byte)
		go func() {
			done <- h.srv.Dispatch(bob, []byte(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"taskIds":["task-1"]},`+metaTasks+`}}`), sink)
		}()
		<-sink.got
		assert.Contains(t, sink.messages()[0], `"notifications":{"taskIds":[]}`)
		g.open()
		synctest.Wait()
		assert.Len(t, sink.messages(), 1, "bob hears nothing of alice's task")
		cancel()
		<-done
	})
}
