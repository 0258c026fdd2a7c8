package tasks_test

import (
	"context"
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/memstore"
)

// RetryLater reruns the work after exactly each delay of the policy, then fails the task.
func TestRetryExactDelays(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var runs []time.Duration
		start := time.Now()
		h := newHarness(t, tasks.Options{
			Tools: map[string]tasks.Policy{"flaky": tasks.Required},
			Retry: tasks.Retry{Delays: []time.Duration{5 * time.Second, 7 * time.Second}},
			// Polling the store would find a due retry only at its next second: the runner
			// must wake at the delay itself.
			ClaimInterval: time.Hour,
		}, func(s *fastmcp.Server) {
			s.AddRawTool(fastmcp.Tool{Name: "flaky", Description: "fails", InputSchema: emptySchema},
				func(ctx context.Context, _ *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
					runs = append(runs, time.Since(start))
					assert.Equal(t, len(runs), tasks.AttemptFrom(ctx))
					return fastmcp.ToolResult{}, tasks.RetryLater(ctx, "not yet")
				})
		})
		h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"flaky",` + metaTasks + `}}`)
		synctest.Wait()
		get := `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"task-1",` + metaTasks + `}}`
		assert.Contains(t, h.send(get), `"status":"working","statusMessage":"not yet"`, "waiting for its retry")
		time.Sleep(time.Minute)
		synctest.Wait()
		assert.Equal(t, []time.Duration{0, 5 * time.Second, 12 * time.Second}, runs)
		got := h.send(get)
		requireResult(t, "GetTaskResult", got)
		assert.Contains(t, got, `"status":"failed","statusMessage":"not yet"`)
		assert.Contains(t, got, `"error":{"code":-32603,"message":"not yet"}`)
	})
}

// A worker that dies keeps its lease until it runs out; then this runner claims the work
// and reruns it with the same id (the idempotency key) and the next attempt.
func TestRecoveryAfterLeaseExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		type run struct {
			id      string
			attempt int
			at      time.Duration
		}
		var runs []run
		start := time.Now()
		store := memstore.New(memstore.Config{})
		require.NoError(t, store.Create(t.Context(), &tasks.Task{
			ID: "crashed", Status: tasks.StatusWorking, CreatedAt: start, UpdatedAt: start, TTL: time.Hour,
			Work: tasks.Work{Version: 1, Tool: "once", Arguments: json.RawMessage(`{}`), Meta: json.RawMessage(metaTasks[len(`"_meta":`):])},
		}, tasks.Limits{}))
		// Another process's worker claimed it, then died without renewing.
		claimed, err := store.ClaimNext(t.Context(), "dead-worker", 30*time.Second)
		require.NoError(t, err)
		require.Equal(t, "crashed", claimed.ID)

		h := newHarnessOn(t, store, tasks.Options{Tools: map[string]tasks.Policy{"once": tasks.Required}}, func(s *fastmcp.Server) {
			s.AddRawTool(fastmcp.Tool{Name: "once", Description: "records", InputSchema: emptySchema},
				func(ctx context.Context, _ *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
					runs = append(runs, run{tasks.IDFrom(ctx), tasks.AttemptFrom(ctx), time.Since(start)})
					return fastmcp.ToolResult{Text: "done"}, nil
				})
		})
		time.Sleep(time.Minute)
		synctest.Wait()
		assert.Equal(t, []run{{"crashed", 2, 30 * time.Second}}, runs, "rerun once, when the dead worker's lease ran out")
		got := h.send(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"crashed",` + metaTasks + `}}`)
		requireResult(t, "GetTaskResult", got)
		assert.Contains(t, got, `"status":"completed"`)
		// The dead worker's late write is refused, and the outcome stays.
		claimed.Status = tasks.StatusFailed
		assert.Error(t, store.Put(t.Context(), claimed, claimed.LeaseGen))
		assert.Contains(t, h.send(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"crashed",`+metaTasks+`}}`), `"status":"completed"`)
	})
}

// Close interrupts a run without changing its task: the lease is released, so the next
// runner over the store (after a restart) claims it at once and runs it again.
func TestCloseReleasesForTheNextProcess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := memstore.New(memstore.Config{})
		g := newGate()
		first := newHarnessOn(t, store, tasks.Options{Tools: testPolicies()}, testTools(g))
		first.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold",` + metaTasks + `}}`)
		runCtx := <-g.started
		require.NoError(t, first.x.Close())
		<-runCtx.Done()
		stored, err := store.Get(t.Context(), "task-1")
		require.NoError(t, err)
		assert.Equal(t, tasks.StatusWorking, stored.Status)

		g2 := newGate()
		second := newHarnessOn(t, store, tasks.Options{Tools: testPolicies()}, testTools(g2))
		<-g2.started
		g2.open()
		synctest.Wait()
		got := second.send(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"task-1",` + metaTasks + `}}`)
		assert.Contains(t, got, `"status":"completed"`)
		assert.Contains(t, got, `"text":"held task-1"`)
	})
}
