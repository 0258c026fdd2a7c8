package fastmcp_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// An extension with one method: undeclared requests are refused before it runs.
func ExampleServer_AddExtension() {
	srv, _ := fastmcp.NewServer(fastmcp.Implementation{Name: "x", Version: "1.0.0"}, nil)
	srv.AddExtension(fastmcp.Extension{
		ID: "example.com/clock",
		Methods: map[string]fastmcp.ExtensionMethod{
			"clock/zone": {Serve: func(context.Context, *fastmcp.Request) (json.RawMessage, error) {
				return json.RawMessage(`{"resultType":"complete","zone":"UTC"}`), nil
			}},
		},
	})
	ask := func(caps string) {
		fmt.Println(string(srv.Dispatch(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"clock/zone","params":{"_meta":{`+
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":`+caps+`}}}`), nil)))
	}
	ask(`{"extensions":{"example.com/clock":{}}}`)
	ask(`{}`)
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","zone":"UTC","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"x","version":"1.0.0"}}}}
	// {"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"extensions":{"example.com/clock":{}}}}}}
}
