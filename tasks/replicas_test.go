package tasks_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/bus/bustest"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/memstore"
)

// replica is one Server with the extension, on a shared store and a shared bus.
func replica(t *testing.T, store tasks.Store, eb fastmcp.EventBus, g *gate) *fastmcp.Server {
	t.Helper()
	srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "test", Version: "1.0.0"}, &fastmcp.Config{EventBus: eb})
	require.NoError(t, err)
	testTools(g)(srv)
	x, err := tasks.New(store, tasks.Options{Tools: testPolicies()})
	require.NoError(t, err)
	tasks.SetIDs(x, func() string { return "task-1" })
	x.Register(srv)
	t.Cleanup(func() { require.NoError(t, x.Close()) })
	return srv
}

// TestNotificationsAcrossReplicas: a status change written by replica A (its tasks/cancel)
// reaches a listen stream held by replica B, through the bus they share; the store stays the
// source of truth (B acknowledges the task because the store has it).
func TestNotificationsAcrossReplicas(t *testing.T) {
	store := memstore.New(memstore.Config{})
	t.Cleanup(func() { require.NoError(t, store.Close()) })
	m := bustest.NewMemory()
	busA, busB := m.Open(0), m.Open(0)
	t.Cleanup(busA.Close)
	t.Cleanup(busB.Close)
	g := newGate()
	t.Cleanup(g.open)
	a := replica(t, store, busA, g)
	b := replica(t, store, busB, g)

	created := string(a.Dispatch(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold",`+metaTasks+`}}`), nil))
	require.Contains(t, created, `"taskId":"task-1"`)

	sink := newListenSink()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan []byte)
	go func() {
		done <- b.Dispatch(ctx, []byte(`{"jsonrpc":"2.0","id":"l","method":"subscriptions/listen","params":{`+
			`"notifications":{"taskIds":["task-1"]},`+metaTasks+`}}`), sink)
	}()
	defer func() { cancel(); <-done }()
	wait := func() string {
		t.Helper()
		select {
		case <-sink.got:
		case <-time.After(30 * time.Second):
			t.Fatal("no notification")
		}
		msgs := sink.messages()
		return msgs[len(msgs)-1]
	}
	assert.Contains(t, wait(), `"notifications":{"taskIds":["task-1"]}`)

	cancelled := string(a.Dispatch(context.Background(), []byte(`{"jsonrpc":"2.0","id":2,"method":"tasks/cancel","params":{"taskId":"task-1",`+metaTasks+`}}`), nil))
	require.Contains(t, cancelled, `"resultType":"complete"`)
	note := wait()
	requireNotification(t, note)
	assert.Contains(t, note, `"method":"notifications/tasks","params":{"taskId":"task-1","status":"cancelled"`)
}
