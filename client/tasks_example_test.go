package client_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/client/inprocess"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/memstore"
)

// A long tool call as a task: the server answers CallToolTask with a task, and Await polls
// it (at the server's pollIntervalMs) until it ends. The server here is in-process, with the
// tasks extension over a memory store; any 2026-07-28 server with the extension will do.
func ExampleClient_CallToolTask() {
	srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "reports", Version: "1.0.0"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	type reportArgs struct {
		Quarter string `json:"quarter"`
	}
	fastmcp.AddTool(srv, fastmcp.Tool{Name: "report", Description: "Builds a quarterly report"},
		func(ctx context.Context, _ *fastmcp.Request, in reportArgs) (fastmcp.ToolResult, error) {
			return fastmcp.ToolResult{Text: "The report for " + in.Quarter + " is ready"}, nil
		})
	store := memstore.New(memstore.Config{})
	defer store.Close()
	x, err := tasks.New(store, tasks.Options{
		Tools:        map[string]tasks.Policy{"report": tasks.Required},
		PollInterval: 50 * time.Millisecond,
	})
	if err != nil {
		log.Fatal(err)
	}
	x.Register(srv)
	defer x.Close()

	c, err := inprocess.Connect(srv, client.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()

	res, task, err := c.CallToolTask(ctx, "report", map[string]string{"quarter": "2026-Q3"})
	if err != nil {
		log.Fatal(err)
	}
	if res != nil { // the server may answer at once, even to a call that accepts a task
		fmt.Println(string(res.Content))
		return
	}
	done, err := task.Await(ctx)
	if err != nil {
		log.Fatal(err) // the wait failed (timeout, transport); the task may still run
	}
	if err := done.Err(); err != nil {
		log.Fatal(err) // the task failed or was cancelled
	}
	fmt.Println(done.Status, string(done.Result.Content))
	// Output: completed [{"type":"text","text":"The report for 2026-Q3 is ready"}]
}
