package stdio

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fastmcp/transport"
	"github.com/fastmcp-go/fastmcp/pool"
)

// recycleLog counts, by request id literal, how often the request jobs of the connections
// on one executor are recycled.
type recycleLog struct {
	mu  sync.Mutex
	ids map[string]int
}

// watchRecycling records the request jobs recycled by the connections on ex until the test
// ends.
func watchRecycling(tb testing.TB, ex *pool.Executor) *recycleLog {
	l := &recycleLog{ids: map[string]int{}}
	hook := func(j *job) {
		if j.c == nil || j.c.ex != ex || j.pkey.IsZero() || j.listen {
			return // another test's leftover, or not a request
		}
		l.mu.Lock()
		l.ids[string(j.msg.ID().Raw())]++
		l.mu.Unlock()
	}
	testHookRecycle.Store(&hook)
	tb.Cleanup(func() { testHookRecycle.Store(nil) })
	return l
}

func (l *recycleLog) count(id string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ids[id]
}

func (l *recycleLog) snapshot() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := make(map[string]int, len(l.ids))
	for k, v := range l.ids {
		m[k] = v
	}
	return m
}

// Every admitted request's job is recycled exactly once, when the executor releases it:
// not when a timeout is answered while the handler still runs, but when the handler
// returns; and also when the request never runs (cancelled or timed out in the queue,
// dropped by Close) or its Run panics.
func TestRequestJobRecycledOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, tt := newTestServer(t)
		fastmcp.AddTool(s, fastmcp.Tool{Name: "stubborn"}, func(_ context.Context, _ *fastmcp.Request, in keyArgs) (fastmcp.ToolResult, error) {
			tt.started <- in.Key
			<-tt.gate(in.Key) // ignores its context
			return fastmcp.ToolResult{Text: "late"}, nil
		})
		ex := newExecutor(t, pool.Config{MaxConcurrency: 1})
		defer tt.open("s") // before the executor's cleanup, even on failure
		recycled := watchRecycling(t, ex)
		h := &panicHandler{transport.For(s)}
		c := startClient(t, func(cfg Config) error { return serve(context.Background(), h, transport.For(s).Decoder(), cfg) },
			Config{Executor: ex, RequestTimeout: time.Second})

		// 1 holds the only worker past its timeout; 2, queued behind it, is cancelled.
		c.send(call("1", "stubborn", `{"key":"s"}`))
		require.Equal(t, "s", <-tt.started)
		c.send(call("2", "wait", `{"key":"never"}`), cancel("2"))
		synctest.Wait()
		require.Equal(t, 1, recycled.count("2"), "cancelled in the queue")

		requireError(t, c.recv(), "1", -32603, "Request execution timed out")
		synctest.Wait()
		require.Zero(t, recycled.count("1"), "answered, but its handler still runs")

		// 3 times out in the queue, behind the handler that ignores its timeout.
		c.send(call("3", "echo", `{"text":"late"}`))
		requireError(t, c.recv(), "3", -32603, "Request execution timed out")
		synctest.Wait()
		require.Equal(t, 1, recycled.count("3"), "timed out in the queue")
		require.Zero(t, recycled.count("1"))

		tt.open("s")
		synctest.Wait()
		require.Equal(t, 1, recycled.count("1"), "its handler returned")

		// 4's Run panics.
		c.send(`{"jsonrpc":"2.0","id":4,"method":"boom"}`)
		requireError(t, c.recv(), "4", -32603, "Internal error")
		synctest.Wait()
		require.Equal(t, 1, recycled.count("4"))

		// 5 runs and 6 waits when the executor is closed under the connection.
		c.send(call("5", "wait", `{"key":"w"}`))
		require.Equal(t, "w", <-tt.started)
		c.send(call("6", "echo", `{"text":"queued"}`))
		synctest.Wait()
		require.Equal(t, 1, ex.Queued())
		gone, cancelClose := context.WithCancel(context.Background())
		cancelClose()
		require.ErrorIs(t, ex.Close(gone), context.Canceled)
		got := byID(t, []string{c.recv().raw, c.recv().raw})
		requireError(t, got["5"], "5", -32603, "Request executor unavailable")
		requireError(t, got["6"], "6", -32603, "Request executor unavailable")
		rest, err := c.close()
		require.ErrorIs(t, err, pool.ErrClosed)
		require.Empty(t, rest)
		require.Equal(t, "w:context canceled", <-tt.ended)
		require.NoError(t, ex.Close(context.Background()))

		synctest.Wait()
		require.Equal(t, map[string]int{"1": 1, "2": 1, "3": 1, "4": 1, "5": 1, "6": 1}, recycled.snapshot())
	})
}
