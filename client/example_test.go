package client_test

import (
	"context"
	"fmt"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fixtures"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// Calling a tool on an MCP server of either era: EraAuto probes server/discover and falls
// back to the initialize handshake on an older server.
func Example() {
	url, stop := serveDemo()
	defer stop()

	ctx := context.Background()
	c, err := client.Connect(ctx, url, client.Config{Era: client.EraAuto})
	if err != nil {
		panic(err)
	}
	defer c.Close()

	res, err := c.CallTool(ctx, "echo", map[string]string{"text": "hello"})
	if err != nil {
		panic(err)
	}
	fmt.Println(c.ProtocolVersion(), string(res.Content))
	// Output: 2026-07-28 [{"type":"text","text":"hello"}]
}

// serveDemo serves the demo catalog on a free loopback port.
func serveDemo() (url string, stop func()) {
	core, _ := fastmcp.NewServer(fastmcp.Implementation{Name: "demo", Version: "1.0.0"}, nil)
	_ = fixtures.Register(core, "demo")
	s, _ := streamable.New(core, streamable.ListenerConfig{Addr: "127.0.0.1:0"})
	if err := s.Listen(); err != nil {
		panic(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	return s.URL(), func() { _ = s.Shutdown(context.Background()); <-done }
}
