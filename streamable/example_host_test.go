package streamable_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// Mounting the endpoint in an application's own fasthttp server, next to its other routes,
// behind its own authentication. In a Fiber v2 app the same handler mounts with
//
//	h, _ := streamable.NewRequestHandler(core, streamable.Config{Path: "/mcp"})
//	app.All("/mcp", func(c *fiber.Ctx) error {
//		streamable.SetIdentity(c.Context(), verified(c)) // the app's own authentication
//		h.Handler()(c.Context())
//		return nil
//	})
//
// and Close after app.Shutdown.
func ExampleNewRequestHandler() {
	core, _ := fastmcp.NewServer(fastmcp.Implementation{Name: "example", Version: "1.0.0"}, nil)
	type args struct {
		Text string `json:"text"`
	}
	fastmcp.AddTool(core, fastmcp.Tool{Name: "echo", Description: "Echo the text"},
		func(ctx context.Context, r *fastmcp.Request, in args) (fastmcp.ToolResult, error) {
			return fastmcp.ToolResult{Text: in.Text}, nil
		})
	mcp, _ := streamable.NewRequestHandler(core, streamable.Config{})
	serveMCP := mcp.Handler()

	app := func(ctx *fasthttp.RequestCtx) {
		switch string(ctx.Path()) {
		case "/healthz":
			ctx.SetBodyString("ok")
		case "/mcp":
			if string(ctx.Request.Header.Peek("Authorization")) != "Bearer secret" {
				ctx.Error("unauthorized", fasthttp.StatusUnauthorized)
				return
			}
			streamable.SetIdentity(ctx, &fastmcp.Identity{Principal: "alice"})
			serveMCP(ctx)
		default:
			ctx.NotFound()
		}
	}
	fs := &fasthttp.Server{
		Handler: app,
		// What the handler needs of its host (see "Mounting in a fasthttp server").
		HeaderReceived:     mcp.HeaderReceived,
		ErrorHandler:       mcp.ErrorHandler,
		ReadBufferSize:     streamable.DefaultMaxHeaderBytes + 4096,
		MaxRequestBodySize: streamable.DefaultMaxBodyBytes,
		ReadTimeout:        streamable.DefaultReadTimeout,
		IdleTimeout:        streamable.DefaultIdleTimeout,
		Concurrency:        streamable.DefaultMaxConnections,
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	go fs.Serve(ln)
	defer func() {
		_ = fs.Shutdown()
		_ = mcp.Close(context.Background())
	}()

	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},` +
		`"name":"echo","arguments":{"text":"hello"}}}`
	req, _ := http.NewRequest(http.MethodPost, "http://"+ln.Addr().String()+"/mcp", strings.NewReader(body))
	for k, v := range map[string]string{
		"Authorization": "Bearer secret", "Content-Type": "application/json",
		"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28",
		"Mcp-Method": "tools/call", "Mcp-Name": "echo",
	} {
		req.Header.Set(k, v)
	}
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, string(out))
	// Output:
	// 200 {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"hello"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"example","version":"1.0.0"}}}}
}
