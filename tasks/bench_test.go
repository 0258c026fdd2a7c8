package tasks_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/memstore"
	"github.com/fastmcp-go/fastmcp/tasks/sqlitestore"
)

// benchHarness has a completed task-1 (hold) and a Required tool park whose runs block until
// the end, with MaxJobs 1: after the first, created tasks only wait in the store.
func benchHarness(tb testing.TB, store tasks.Store) (*harness, func()) {
	g := newGate()
	g.open()
	stop := make(chan struct{})
	h := newHarnessOn(tb, store, tasks.Options{
		Tools:   map[string]tasks.Policy{"hold": tasks.Optional, "park": tasks.Required},
		MaxJobs: 1, MaxTasks: 1 << 30, MaxActivePerScope: 1 << 30, TTL: -1,
	}, func(s *fastmcp.Server) {
		testTools(g)(s)
		s.AddRawTool(fastmcp.Tool{Name: "park", Description: "parks", InputSchema: emptySchema},
			func(ctx context.Context, _ *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
				select {
				case <-stop:
				case <-ctx.Done():
				}
				return fastmcp.ToolResult{}, ctx.Err()
			})
	})
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold",` + metaTasks + `}}`)
	<-g.started
	for !strings.Contains(h.send(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"task-1",`+metaTasks+`}}`), `"completed"`) {
		// the runner stores the outcome just after the handler returns: poll until it has
	}
	return h, func() { close(stop) }
}

var (
	benchGet    = []byte(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"task-1",` + metaTasks + `}}`)
	benchCreate = []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"park",` + metaTasks + `}}`)
)

// BenchmarkTasks measures the extension's request paths: op=get is a client's poll of a
// completed task, op=create a tools/call that becomes a task (validated, stored, answered;
// the runner has no free slot, so it is not run), over the memory store and over SQLite (a
// file in the test's temporary directory, synchronous=FULL: every creation is on disk before
// the answer).
func BenchmarkTasks(b *testing.B) {
	ctx := context.Background()
	for _, st := range []struct {
		name string
		open func(b *testing.B) tasks.Store
	}{
		{"memory", func(*testing.B) tasks.Store { return memstore.New(memstore.Config{}) }},
		{"sqlite", func(b *testing.B) tasks.Store {
			s, err := sqlitestore.Open(ctx, filepath.Join(b.TempDir(), "tasks.db"), sqlitestore.Config{})
			require.NoError(b, err)
			return s
		}},
	} {
		b.Run("store="+st.name, func(b *testing.B) {
			h, stop := benchHarness(b, st.open(b))
			defer stop()
			for _, bm := range []struct {
				name string
				msg  []byte
			}{{"op=get", benchGet}, {"op=create", benchCreate}} {
				b.Run(bm.name, func(b *testing.B) {
					b.ReportAllocs()
					b.SetBytes(int64(len(bm.msg)))
					for b.Loop() {
						h.srv.Dispatch(ctx, bm.msg, nil)
					}
				})
			}
		})
	}
}
