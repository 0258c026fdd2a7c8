// Command mcpgo serves one echo tool on github.com/mark3labs/mcp-go over Streamable HTTP,
// stateless (JSON responses are its default): the community SDK's side of
// fastmcp-bench compare.
package main

import (
	"context"
	"flag"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/fastmcp-go/fastmcp/bench/peers/internal/announce"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	pprofAddr := flag.String("pprof", "", "serve net/http/pprof on this loopback address and name it in the readiness line")
	flag.Parse()
	s := server.NewMCPServer("mcpgo-echo", "0.0.1", server.WithToolCapabilities(false))
	s.AddTool(
		mcp.NewTool("echo",
			mcp.WithDescription("echo the text"),
			mcp.WithString("text", mcp.Required(), mcp.Description("text to echo back")),
		),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text, err := req.RequireString("text")
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			return mcp.NewToolResultText(text), nil
		},
	)
	mux := http.NewServeMux()
	mux.Handle("/mcp", server.NewStreamableHTTPServer(s, server.WithStateLess(true)))
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	if err := announce.Ready(ln, *pprofAddr); err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	log.Fatal(srv.Serve(ln))
}
