package sqlitestore_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/sqlitestore"
)

// BenchmarkGet: tasks/get's read of one task.
func BenchmarkGet(b *testing.B) {
	s, err := sqlitestore.Open(b.Context(), filepath.Join(b.TempDir(), "get.db"), sqlitestore.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	task := &tasks.Task{ID: "t", Scope: "alice", Status: tasks.StatusWorking, TTL: time.Hour,
		Work: tasks.Work{Version: 1, Tool: "x", Arguments: []byte(`{"a":1}`)}}
	if err := s.Create(b.Context(), task, tasks.Limits{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Get(b.Context(), "t"); err != nil {
			b.Fatal(err)
		}
	}
}
