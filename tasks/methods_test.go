package tasks_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/internal/wireschema"
	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/memstore"
)

// An undeclaring request to tasks/* gets -32021 before any lookup: an id that names no task
// is not -32602 there.
func TestMethodsGateBeforeLookup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, tasks.Options{Tools: testPolicies()}, testTools(newGate()))
		for _, call := range []string{
			`"method":"tasks/get","params":{"taskId":"gate-test",`,
			`"method":"tasks/update","params":{"taskId":"gate-test","inputResponses":{},`,
			`"method":"tasks/cancel","params":{"taskId":"gate-test",`,
		} {
			got := h.send(`{"jsonrpc":"2.0","id":1,` + call + metaNone + `}}`)
			wireschema.RequireValid(t, "MissingRequiredClientCapabilityError", []byte(got))
			assert.Equal(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"Missing required client capability",`+
				`"data":{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`, got, call)
		}
	})
}

// Unknown, too long, and another principal's task ids all read the same -32602; the v1
// methods stay -32601.
func TestUnknownTasksAndRemovedMethods(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate()
		h := newHarness(t, tasks.Options{Tools: testPolicies()}, testTools(g))
		alice := fastmcp.WithIdentity(context.Background(), &fastmcp.Identity{Principal: "alice"})
		bob := fastmcp.WithIdentity(context.Background(), &fastmcp.Identity{Principal: "bob"})
		h.sendCtx(alice, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold",`+metaTasks+`}}`)
		<-g.started

		unknown := `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params: unknown task"}}`
		for _, id := range []string{"tasks-conformance-nonexistent-12345", strings.Repeat("x", tasks.MaxTaskIDBytes+1)} {
			got := h.sendCtx(alice, `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"`+id+`",`+metaTasks+`}}`)
			requireErrorObject(t, "InvalidParamsError", got)
			assert.Equal(t, unknown, got)
		}
		for _, m := range []string{`"method":"tasks/get","params":{`, `"method":"tasks/cancel","params":{`, `"method":"tasks/update","params":{"inputResponses":{},`} {
			got := h.sendCtx(bob, `{"jsonrpc":"2.0","id":2,`+m+`"taskId":"task-1",`+metaTasks+`}}`)
			assert.Equal(t, unknown, got, "bob cannot tell alice's task from none: %s", m)
		}
		got := h.sendCtx(alice, `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"task-1",`+metaTasks+`}}`)
		assert.Contains(t, got, `"status":"working"`, "bob's cancel did nothing")

		for _, m := range []string{"tasks/list", "tasks/result"} {
			got := h.send(`{"jsonrpc":"2.0","id":4,"method":"` + m + `","params":{"taskId":"x",` + metaTasks + `}}`)
			requireErrorObject(t, "MethodNotFoundError", got)
			assert.Equal(t, `{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found"}}`, got)
		}
		bad := h.send(`{"jsonrpc":"2.0","id":5,"method":"tasks/get","params":{"taskId":7,` + metaTasks + `}}`)
		assert.Equal(t, `{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"Invalid params: taskId must be a string"}}`, bad)
		g.open()
	})
}

// Cancel: the ack is empty, the task reads cancelled right after it, the handler's context
// ends at once; a terminal task's cancel is the same ack and changes nothing.
func TestCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate()
		h := newHarness(t, tasks.Options{Tools: testPolicies()}, testTools(g))
		h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold",` + metaTasks + `}}`)
		runCtx := <-g.started
		ack := h.send(`{"jsonrpc":"2.0","id":2,"method":"tasks/cancel","params":{"taskId":"task-1",` + metaTasks + `}}`)
		requireResult(t, "EmptyAck", ack)
		assert.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete",`+serverMeta+`}}`, ack)
		<-runCtx.Done() // interrupted at once, not at the next renewal
		got := h.send(`{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"task-1",` + metaTasks + `}}`)
		requireResult(t, "GetTaskResult", got)
		assert.Equal(t, `{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","taskId":"task-1","status":"cancelled","statusMessage":"Task cancelled",`+
			`"createdAt":"`+t0+`","lastUpdatedAt":"`+t0+`","ttlMs":3600000,"pollIntervalMs":250,`+serverMeta+`}}`, got)
		synctest.Wait()
		again := h.send(`{"jsonrpc":"2.0","id":4,"method":"tasks/cancel","params":{"taskId":"task-1",` + metaTasks + `}}`)
		assert.Equal(t, `{"jsonrpc":"2.0","id":4,"result":{"resultType":"complete",`+serverMeta+`}}`, again)
		after := h.send(`{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"task-1",` + metaTasks + `}}`)
		assert.Equal(t, got, after, "the worker's late outcome did not overwrite the cancellation")
	})
}

// A cancel served by another process reaches the worker at its next lease renewal.
func TestCancelSeenOnRenew(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate()
		h := newHarness(t, tasks.Options{Tools: testPolicies(), LeaseDuration: 3 * time.Second}, testTools(g))
		h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold",` + metaTasks + `}}`)
		runCtx := <-g.started
		// Another process sets the flag in the shared store, as its tasks/cancel would.
		task, err := h.store.Get(t.Context(), "task-1")
		require.NoError(t, err)
		task.CancelRequested = true
		require.NoError(t, h.store.Put(t.Context(), task, 0))
		start := time.Now()
		<-runCtx.Done()
		assert.Equal(t, time.Second, time.Since(start), "renewed every third of the lease")
		synctest.Wait()
		got := h.send(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"task-1",` + metaTasks + `}}`)
		assert.Contains(t, got, `"status":"cancelled"`)
	})
}

// countingStore counts the reads that reach the store.
type countingStore struct {
	*memstore.Store
	gets atomic.Int32
}

func (s *countingStore) Get(ctx context.Context, id string) (*tasks.Task, error) {
	s.gets.Add(1)
	return s.Store.Get(ctx, id)
}

// A taskId past MaxTaskIDBytes is refused before it reaches the store.
func TestTaskIDLimitStopsBeforeTheStore(t *testing.T) {
	store := &countingStore{Store: memstore.New(memstore.Config{})}
	defer store.Close()
	srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "test", Version: "1.0.0"}, nil)
	require.NoError(t, err)
	x, err := tasks.New(store, tasks.Options{})
	require.NoError(t, err)
	x.Register(srv)
	defer x.Close()
	get := func(id string) string {
		return string(srv.Dispatch(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"`+id+`",`+metaTasks+`}}`), nil))
	}
	unknown := `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: unknown task"}}`
	assert.Equal(t, unknown, get(strings.Repeat("x", tasks.MaxTaskIDBytes)))
	assert.Equal(t, int32(1), store.gets.Load(), "256 bytes are looked up")
	assert.Equal(t, unknown, get(strings.Repeat("x", tasks.MaxTaskIDBytes+1)))
	assert.Equal(t, int32(1), store.gets.Load(), "257 bytes are not")
}
