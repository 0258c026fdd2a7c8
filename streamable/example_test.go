package streamable_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// Mounting the endpoint in a net/http server behind an authentication middleware: the
// middleware verifies the caller and puts its identity in the request context.
func ExampleNewHandler() {
	core, _ := fastmcp.NewServer(fastmcp.Implementation{Name: "example", Version: "1.0.0"}, nil)
	type args struct {
		Text string `json:"text"`
	}
	fastmcp.AddTool(core, fastmcp.Tool{Name: "echo", Description: "Echo the text"},
		func(ctx context.Context, r *fastmcp.Request, in args) (fastmcp.ToolResult, error) {
			return fastmcp.ToolResult{Text: in.Text}, nil
		})
	mcp, _ := streamable.NewHandler(core, streamable.Config{})
	defer mcp.Close(context.Background())

	authenticate := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer secret" {
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			id := &fastmcp.Identity{Principal: "alice"}
			next.ServeHTTP(w, r.WithContext(fastmcp.WithIdentity(r.Context(), id)))
		})
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", authenticate(mcp))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},` +
		`"name":"echo","arguments":{"text":"hello"}}}`
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(body))
	for k, v := range map[string]string{
		"Authorization": "Bearer secret", "Content-Type": "application/json",
		"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28",
		"Mcp-Method": "tools/call", "Mcp-Name": "echo",
	} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, string(out))
	// Output:
	// 200 {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"hello"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"example","version":"1.0.0"}}}}
}
