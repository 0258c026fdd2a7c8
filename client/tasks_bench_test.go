package client

import (
	"context"
	"testing"

	"github.com/fastmcp-go/fastmcp/tasks"
)

// BenchmarkTasks: the helper's requests in-process against the memory store, the server's
// work included: op=create is CallToolTask of an optional tool (each task cancelled after),
// op=get one poll of a running task.
func BenchmarkTasks(b *testing.B) {
	ctx := context.Background()
	b.Run("op=create", func(b *testing.B) {
		c, _ := directTasks(b, tasksServer(b, tasks.Options{MaxActivePerScope: 1 << 20, MaxTasks: 1 << 20}), Config{})
		args := []byte(`{"seconds":600}`)
		b.ReportAllocs()
		for b.Loop() {
			_, h, err := c.CallToolTask(ctx, "slow_compute", args)
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if err := h.Cancel(ctx); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	})
	b.Run("op=get", func(b *testing.B) {
		c, _ := directTasks(b, tasksServer(b, tasks.Options{}), Config{})
		_, h, err := c.CallToolTask(ctx, "slow_compute", []byte(`{"seconds":600}`))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = h.Cancel(ctx) })
		b.ReportAllocs()
		for b.Loop() {
			if _, err := h.Get(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}
