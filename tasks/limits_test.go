package tasks_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/memstore"
)

// MaxWorkInputBytes counts the arguments with the request _meta: one byte past it is
// -32602 and creates nothing.
func TestWorkInputLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate()
		g.open()
		limit := 600
		h := newHarness(t, tasks.Options{Tools: map[string]tasks.Policy{"echo": tasks.Required}, MaxWorkInputBytes: limit}, testTools(g))
		meta := metaTasks[len(`"_meta":`):]
		call := func(text string) string {
			return h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + text + `"},` + metaTasks + `}}`)
		}
		fits := strings.Repeat("x", limit-len(meta)-len(`{"text":""}`))
		assert.Contains(t, call(fits), `"resultType":"task"`)
		over := call(fits + "x")
		requireErrorObject(t, "InvalidParamsError", over)
		assert.Equal(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: task work input exceeds 600 bytes"}}`, over)
		assert.Equal(t, tasks.DefaultMaxWorkInputBytes, 256<<10)
	})
}

// The store's limits refuse a call with -32603 "Task capacity exhausted", retryable, naming
// the option; per principal, and over the store.
func TestCapacityLimits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate()
		h := newHarness(t, tasks.Options{Tools: testPolicies(), MaxActivePerScope: 1, MaxTasks: 2}, testTools(g))
		alice := fastmcp.WithIdentity(context.Background(), &fastmcp.Identity{Principal: "alice"})
		bob := fastmcp.WithIdentity(context.Background(), &fastmcp.Identity{Principal: "bob"})
		carol := fastmcp.WithIdentity(context.Background(), &fastmcp.Identity{Principal: "carol"})
		call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold",` + metaTasks + `}}`
		assert.Contains(t, h.sendCtx(alice, call), `"taskId":"task-1"`)
		perScope := h.sendCtx(alice, call)
		requireErrorObject(t, "InternalError", perScope)
		assert.Equal(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Task capacity exhausted","data":{"retryable":true,"limit":"MaxActivePerScope"}}}`, perScope)
		assert.Contains(t, h.sendCtx(bob, call), `"resultType":"task"`)
		total := h.sendCtx(carol, call)
		assert.Equal(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Task capacity exhausted","data":{"retryable":true,"limit":"MaxTasks"}}}`, total)
		g.open()
	})
}

// MaxJobs bounds the runs at once: a second task waits in the store until the first ends.
func TestMaxJobs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate()
		h := newHarness(t, tasks.Options{Tools: testPolicies(), MaxJobs: 1}, testTools(g))
		call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold",` + metaTasks + `}}`
		h.send(call)
		h.send(call)
		<-g.started
		time.Sleep(time.Minute)
		synctest.Wait()
		assert.Empty(t, g.started, "the second task did not start while the first runs")
		second, err := h.store.Get(t.Context(), "task-2")
		require.NoError(t, err)
		assert.Zero(t, second.Attempt)
		g.open()
		<-g.started
	})
}

// MaxRuntime ends a run that takes longer: the task fails with -32603.
func TestMaxRuntime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate()
		h := newHarness(t, tasks.Options{Tools: testPolicies(), MaxRuntime: 10 * time.Second}, testTools(g))
		h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold",` + metaTasks + `}}`)
		runCtx := <-g.started
		start := time.Now()
		<-runCtx.Done()
		assert.Equal(t, 10*time.Second, time.Since(start))
		synctest.Wait()
		got := h.send(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"task-1",` + metaTasks + `}}`)
		requireResult(t, "GetTaskResult", got)
		assert.Contains(t, got, `"status":"failed","statusMessage":"Task exceeded its maximum runtime"`)
		assert.Contains(t, got, `"error":{"code":-32603,"message":"Task exceeded its maximum runtime"}`)
	})
}

// A task reads as unknown from createdAt+ttlMs on, not a moment before, and is reaped.
func TestTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate()
		g.open()
		h := newHarness(t, tasks.Options{Tools: testPolicies(), TTL: time.Minute, ReapInterval: 90 * time.Second}, testTools(g))
		created := h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold",` + metaTasks + `}}`)
		assert.Contains(t, created, `"ttlMs":60000`)
		get := `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"task-1",` + metaTasks + `}}`
		time.Sleep(time.Minute - time.Millisecond)
		assert.Contains(t, h.send(get), `"status":"completed"`)
		time.Sleep(time.Millisecond)
		assert.Equal(t, `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params: unknown task"}}`, h.send(get))
		time.Sleep(30 * time.Second)
		synctest.Wait()
		n, err := h.store.Reap(t.Context(), 10)
		require.NoError(t, err)
		assert.Zero(t, n, "the runner's reaper deleted it already")
	})
}

// A negative TTL is unlimited: ttlMs null.
func TestUnlimitedTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate()
		g.open()
		h := newHarness(t, tasks.Options{Tools: testPolicies(), TTL: -1}, testTools(g))
		created := h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold",` + metaTasks + `}}`)
		requireResult(t, "CreateTaskResult", created)
		assert.Contains(t, created, `"ttlMs":null`)
	})
}

func TestInvalidOptions(t *testing.T) {
	store := memstore.New(memstore.Config{})
	for _, o := range []tasks.Options{{MaxJobs: -1}, {MaxTasks: -1}, {LeaseDuration: -time.Second}, {Retry: tasks.Retry{Delays: []time.Duration{-1}}}} {
		_, err := tasks.New(store, o)
		require.ErrorIs(t, err, tasks.ErrInvalidOptions, "%+v", o)
	}
	_, err := tasks.New(nil, tasks.Options{})
	require.ErrorIs(t, err, tasks.ErrInvalidOptions, "a nil store")
	_, err = tasks.New(store, tasks.Options{})
	require.NoError(t, err)
}

// The documented defaults of every limit.
func TestDefaults(t *testing.T) {
	assert.Equal(t, 32, tasks.DefaultMaxJobs)
	assert.Equal(t, time.Hour, tasks.DefaultMaxRuntime)
	assert.Equal(t, 10_000, tasks.DefaultMaxTasks)
	assert.Equal(t, 100, tasks.DefaultMaxActivePerScope)
	assert.Equal(t, 262_144, tasks.DefaultMaxWorkInputBytes)
	assert.Equal(t, 256, tasks.MaxTaskIDBytes)
	assert.Equal(t, 100, tasks.MaxListenTaskIDs)
	assert.Equal(t, time.Hour, tasks.DefaultTTL)
	assert.Equal(t, 250*time.Millisecond, tasks.DefaultPollInterval)
}

// With the default options, 32 runs at once and no more.
func TestDefaultMaxJobs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &gate{started: make(chan context.Context, 64), release: make(chan struct{})}
		h := newHarness(t, tasks.Options{Tools: testPolicies()}, testTools(g))
		for range tasks.DefaultMaxJobs + 1 {
			assert.Contains(t, h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold",`+metaTasks+`}}`), `"resultType":"task"`)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		assert.Len(t, g.started, tasks.DefaultMaxJobs)
		g.open()
		synctest.Wait()
		assert.Len(t, g.started, tasks.DefaultMaxJobs+1, "the last one ran once a slot was free")
	})
}

// TestLimitsBounds: a zero or negative limit is its default; a set one is kept.
func TestLimitsBounds(t *testing.T) {
	maxTasks, maxActive := tasks.Limits{}.Bounds()
	assert.Equal(t, tasks.DefaultMaxTasks, maxTasks)
	assert.Equal(t, tasks.DefaultMaxActivePerScope, maxActive)
	maxTasks, maxActive = tasks.Limits{MaxTasks: 3, MaxActivePerScope: -1}.Bounds()
	assert.Equal(t, 3, maxTasks)
	assert.Equal(t, tasks.DefaultMaxActivePerScope, maxActive)
}

// MaxWorkInputBytes covers the answers tasks/update adds to the work: an update that would
// take it one byte past the limit is refused whole with the same -32602, and the task
// stays input_required as it was; an answer that brings it exactly to the limit is taken.
func TestWorkInputLimitCoversAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		limit := 1000
		h := newHarness(t, tasks.Options{Tools: testPolicies(), MaxWorkInputBytes: limit}, testTools(newGate()))
		h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask2",` + metaTasks + `}}`)
		synctest.Wait()
		stored, err := h.store.Get(t.Context(), "task-1")
		require.NoError(t, err)
		base := len(stored.Work.Arguments) + len(stored.Work.Meta)
		answer := func(name string) string { return `{"action":"accept","content":{"name":"` + name + `"}}` }
		update := func(id int, key, value string) string {
			return h.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tasks/update","params":{"taskId":"task-1","inputResponses":{"` + key + `":` + value + `},` + metaTasks + `}}`)
		}
		get := `{"jsonrpc":"2.0","id":9,"method":"tasks/get","params":{"taskId":"task-1",` + metaTasks + `}}`

		a := answer("Alice")
		assert.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete",`+serverMeta+`}}`, update(2, "a", a))
		waiting := h.send(get)
		assert.Contains(t, waiting, `"status":"input_required"`)

		// The stored answers become {"a":A,"b":B}: B sized to end exactly at the limit.
		fill := limit - base - len(`{"a":`+a+`,"b":`+answer("")+`}`)
		require.Positive(t, fill)
		over := update(3, "b", answer(strings.Repeat("x", fill+1)))
		requireErrorObject(t, "InvalidParamsError", over)
		assert.Equal(t, `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: task work input exceeds 1000 bytes"}}`, over)
		assert.Equal(t, waiting, h.send(get), "the refused update changed nothing")
		kept, err := h.store.Get(t.Context(), "task-1")
		require.NoError(t, err)
		assert.JSONEq(t, `{"a":`+a+`}`, string(kept.Responses))

		assert.Equal(t, `{"jsonrpc":"2.0","id":4,"result":{"resultType":"complete",`+serverMeta+`}}`, update(4, "b", answer(strings.Repeat("x", fill))))
		synctest.Wait()
		done := h.send(get)
		assert.Contains(t, done, `"status":"completed"`)
		assert.Contains(t, done, `"text":"a=Alice b=`+strings.Repeat("x", fill)+` "`)
		final, err := h.store.Get(t.Context(), "task-1")
		require.NoError(t, err)
		assert.Equal(t, limit, len(final.Work.Arguments)+len(final.Work.Meta)+len(final.Responses), "exactly at the limit")
	})
}

// A run still going when its task expires is interrupted at the next lease renewal: its
// outcome could never be read.
func TestRunEndsWhenItsTaskExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate()
		h := newHarness(t, tasks.Options{Tools: testPolicies(), TTL: time.Minute}, testTools(g))
		start := time.Now()
		h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold",` + metaTasks + `}}`)
		runCtx := <-g.started
		<-runCtx.Done()
		assert.Equal(t, time.Minute, time.Since(start), "the renewal at 60 s found it gone")
		synctest.Wait()
		_, err := h.store.Get(t.Context(), "task-1")
		require.ErrorIs(t, err, tasks.ErrNotFound)
		assert.Empty(t, g.started, "not run again")
	})
}
