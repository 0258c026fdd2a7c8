package tasks_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks"
)

// Completion against cancel: whichever write lands first stays, and the task never changes
// once terminal.
func TestCompletionAgainstCancel(t *testing.T) {
	for range 20 {
		synctest.Test(t, func(t *testing.T) {
			g := newGate()
			h := newHarness(t, tasks.Options{Tools: testPolicies()}, testTools(g))
			h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold",` + metaTasks + `}}`)
			<-g.started
			var wg sync.WaitGroup
			wg.Go(g.open)
			wg.Go(func() {
				h.send(`{"jsonrpc":"2.0","id":2,"method":"tasks/cancel","params":{"taskId":"task-1",` + metaTasks + `}}`)
			})
			wg.Wait()
			synctest.Wait()
			first, err := h.store.Get(t.Context(), "task-1")
			require.NoError(t, err)
			require.True(t, first.Status.Terminal(), first.Status)
			h.send(`{"jsonrpc":"2.0","id":3,"method":"tasks/cancel","params":{"taskId":"task-1",` + metaTasks + `}}`)
			synctest.Wait()
			after, err := h.store.Get(t.Context(), "task-1")
			require.NoError(t, err)
			assert.Equal(t, first.Status, after.Status)
			assert.Equal(t, first.Revision, after.Revision, "nothing wrote to a terminal task")
		})
	}
}

// Two tasks/update at once, each answering one of two outstanding keys: both answers are
// kept (compare-and-set with retries), and the task runs again once.
func TestConcurrentUpdates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, tasks.Options{Tools: testPolicies()}, testTools(newGate()))
		h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask2",` + metaTasks + `}}`)
		synctest.Wait()
		var acks atomic.Int32
		var wg sync.WaitGroup
		for _, k := range []string{"a", "b"} {
			wg.Go(func() {
				got := h.send(`{"jsonrpc":"2.0","id":2,"method":"tasks/update","params":{"taskId":"task-1","inputResponses":{"` + k +
					`":{"action":"accept","content":{"name":"` + k + `!"}}},` + metaTasks + `}}`)
				if got == `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete",`+serverMeta+`}}` {
					acks.Add(1)
				}
			})
		}
		wg.Wait()
		synctest.Wait()
		assert.Equal(t, int32(2), acks.Load())
		got := h.send(`{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"task-1",` + metaTasks + `}}`)
		assert.Contains(t, got, `"text":"a=a! b=b! "`)
	})
}
