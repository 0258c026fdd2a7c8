package sqlitestore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/sqlitestore"
)

// Open creates the file and its schema; a task created there is durable once Create returns.
func Example() {
	dir, _ := os.MkdirTemp("", "tasks")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	store, err := sqlitestore.Open(ctx, filepath.Join(dir, "tasks.db"), sqlitestore.Config{})
	if err != nil {
		panic(err)
	}
	defer store.Close()
	task := &tasks.Task{ID: "t1", Scope: "alice", Status: tasks.StatusWorking, TTL: time.Hour,
		Work: tasks.Work{Version: 1, Tool: "report"}}
	fmt.Println(store.Create(ctx, task, tasks.Limits{}), task.Revision)
	fmt.Println(store.Create(ctx, task, tasks.Limits{}))
	// Output:
	// <nil> 1
	// tasks: task exists
}
