package client_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/client/inprocess"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fixtures"
)

// A subscription to tools/list_changed: the demo's toggle tool changes the catalog.
func ExampleClient_Listen() {
	url, stop := serveDemo()
	defer stop()
	ctx := context.Background()
	c, err := client.Connect(ctx, url, client.Config{})
	if err != nil {
		panic(err)
	}
	defer c.Close()

	sub, err := c.Listen(ctx, client.ListenFilter{ToolsListChanged: true})
	if err != nil {
		panic(err)
	}
	if _, err := c.CallTool(ctx, "toggle", nil); err != nil {
		panic(err)
	}
	n := <-sub.C
	_ = sub.Close()
	end, _ := sub.End()
	fmt.Println(n.Method, end)
	// Output: notifications/tools/list_changed local
}

// An initialize-era server over HTTP that keeps no sessions (this one) refuses the GET event
// stream: it has no way to send anything outside a request, and Listen says so at once.
func ExampleClient_Listen_statelessLegacy() {
	url, stop := serveDemo()
	defer stop()
	ctx := context.Background()
	c, err := client.Connect(ctx, url, client.Config{Era: client.EraLegacy})
	if err != nil {
		panic(err)
	}
	defer c.Close()

	_, err = c.Listen(ctx, client.ListenFilter{ToolsListChanged: true})
	fmt.Println(errors.Is(err, client.ErrNoEventStream))
	// Output: true
}

// Config.OnLog receives the server's log messages; on a modern connection requests then ask
// for them at Config.LogLevel.
func ExampleLogMessage() {
	srv, _ := fastmcp.NewServer(fastmcp.Implementation{Name: "logs", Version: "1.0.0"}, nil)
	_ = fixtures.Register(srv, "conformance")
	logs := make(chan client.LogMessage, 3)
	c, err := inprocess.Connect(srv, client.Config{OnLog: func(m client.LogMessage) { logs <- m }})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	if _, err := c.CallTool(context.Background(), "test_tool_with_logging", nil); err != nil {
		panic(err)
	}
	for range 3 {
		m := <-logs
		fmt.Println(m.Level, m.Logger, string(m.Data))
	}
	// Output:
	// info test_tool_with_logging "Tool execution started"
	// info test_tool_with_logging "Tool processing data"
	// info test_tool_with_logging "Tool execution completed"
}
