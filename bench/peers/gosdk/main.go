// Command gosdk serves one echo tool on github.com/modelcontextprotocol/go-sdk over
// Streamable HTTP, stateless, with JSON responses: the official SDK's side of
// fastmcp-bench compare.
package main

import (
	"context"
	"flag"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fastmcp-go/fastmcp/bench/peers/internal/announce"
)

type echoIn struct {
	Text string `json:"text" jsonschema:"text to echo back"`
}

func echo(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	pprofAddr := flag.String("pprof", "", "serve net/http/pprof on this loopback address and name it in the readiness line")
	flag.Parse()
	server := mcp.NewServer(&mcp.Implementation{Name: "gosdk-echo", Version: "v0.0.1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "echo the text"}, echo)
	handler := mcp.NewStreamableHTTPHandler(
		func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true},
	)
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
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
