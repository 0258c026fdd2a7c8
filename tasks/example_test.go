package tasks_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/memstore"
)

// A tool that becomes a task for clients that declare the extension: the call answers at
// once with the task, and tasks/get shows its result when the work is done.
func Example() {
	srv, _ := fastmcp.NewServer(fastmcp.Implementation{Name: "reports", Version: "1.0.0"}, nil)
	done := make(chan struct{})
	type reportArgs struct {
		Month string `json:"month"`
	}
	fastmcp.AddTool(srv, fastmcp.Tool{Name: "report", Description: "Builds a monthly report"},
		func(ctx context.Context, _ *fastmcp.Request, in reportArgs) (fastmcp.ToolResult, error) {
			defer close(done)
			return fastmcp.ToolResult{Text: "report for " + in.Month}, nil
		})
	store := memstore.New(memstore.Config{})
	x, err := tasks.New(store, tasks.Options{Tools: map[string]tasks.Policy{"report": tasks.Optional}})
	if err != nil {
		panic(err)
	}
	x.Register(srv)
	defer store.Close()
	defer x.Close()

	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	created := srv.Dispatch(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call",`+
		`"params":{"name":"report","arguments":{"month":"2026-11"},`+meta+`}}`), nil)
	fmt.Println(strings.Contains(string(created), `"resultType":"task"`))
	id := between(string(created), `"taskId":"`, `"`)

	<-done
	get := []byte(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"` + id + `",` + meta + `}}`)
	for !strings.Contains(string(srv.Dispatch(context.Background(), get, nil)), `"status":"completed"`) {
		time.Sleep(time.Millisecond) // poll, as a client does at pollIntervalMs: the runner stores the outcome after the handler returns
	}
	fmt.Println(between(string(srv.Dispatch(context.Background(), get, nil)), `"text":"`, `"`))
	// Output:
	// true
	// report for 2026-11
}

func between(s, from, to string) string {
	_, after, _ := strings.Cut(s, from)
	v, _, _ := strings.Cut(after, to)
	return v
}
