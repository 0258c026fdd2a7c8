package memstore_test

import (
	"context"
	"fmt"
	"time"

	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/memstore"
)

// A task is created, claimed by a worker under a lease, and completed by a write fenced
// with the lease's generation.
func Example() {
	ctx := context.Background()
	store := memstore.New(memstore.Config{})
	task := &tasks.Task{ID: "t1", Scope: "alice", Status: tasks.StatusWorking, TTL: time.Hour,
		Work: tasks.Work{Version: 1, Tool: "report"}}
	if err := store.Create(ctx, task, tasks.Limits{}); err != nil {
		panic(err)
	}
	claimed, _ := store.ClaimNext(ctx, "worker-1", 30*time.Second)
	claimed.Status = tasks.StatusCompleted
	fmt.Println(store.Put(ctx, claimed, claimed.LeaseGen))
	got, _ := store.Get(ctx, "t1")
	fmt.Println(got.Status, got.Attempt, got.LeaseGen)
	// Output:
	// <nil>
	// completed 1 1
}
