// Command hello is a complete fastmcp server: one typed tool, echo, served over Streamable
// HTTP (MCP revision 2026-07-28) until SIGINT or SIGTERM, which drains it.
//
//	go run ./examples/hello -addr 127.0.0.1:8080
package main

import (
	"context"
	"flag"
	"log"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/streamable"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "TCP address to listen on (port 0 picks a free port)")
	flag.Parse()
	if err := run(context.Background(), *addr, func(url string) { log.Printf("serving MCP at %s", url) }); err != nil {
		log.Fatal(err)
	}
}

// echoArgs are the tool's arguments: the input schema is derived from the type, and every
// call is validated against it before the handler runs.
type echoArgs struct {
	Text string `json:"text" description:"what to echo"`
}

// run serves on addr until ctx is done or the process gets SIGINT or SIGTERM, then shuts
// down: in-flight requests finish and listen streams get their completion, for at most
// streamable.DefaultDrainTimeout. listening gets the endpoint's URL once it listens.
func run(ctx context.Context, addr string, listening func(url string)) error {
	core, err := fastmcp.NewServer(fastmcp.Implementation{Name: "hello", Version: "1.0.0"}, nil)
	if err != nil {
		return err
	}
	fastmcp.AddTool(core, fastmcp.Tool{Name: "echo", Description: "Echo the text"},
		func(ctx context.Context, r *fastmcp.Request, in echoArgs) (fastmcp.ToolResult, error) {
			return fastmcp.ToolResult{Text: in.Text}, nil
		})
	srv, err := streamable.New(core, streamable.ListenerConfig{Addr: addr})
	if err != nil {
		return err
	}
	if err := srv.Listen(); err != nil {
		return err
	}
	listening(srv.URL())
	return srv.Run(ctx)
}
