package stdio_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/stdio"
)

type greetArgs struct {
	Name string `json:"name" description:"Who to greet"`
}

// A server with one tool, served over stdio. A real binary passes stdio.Config{}: standard
// input and output, with anything else written to standard output sent to standard error.
// Here the input is one tools/call line; note the name's non-ASCII letter, escaped on output.
func Example() {
	srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "demo", Version: "1.0.0"}, nil)
	if err != nil {
		panic(err)
	}
	fastmcp.AddTool(srv, fastmcp.Tool{Name: "greet", Description: "Says hello"},
		func(_ context.Context, _ *fastmcp.Request, in greetArgs) (fastmcp.ToolResult, error) {
			return fastmcp.ToolResult{Text: "Hello, " + in.Name + "!"}, nil
		})

	input := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Zoë"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n")
	if err := stdio.Serve(context.Background(), srv, stdio.Config{Input: input, Output: os.Stdout}); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"Hello, Zo\u00eb!"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"demo","version":"1.0.0"}}}}
}
