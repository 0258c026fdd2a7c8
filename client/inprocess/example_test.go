package inprocess_test

import (
	"context"
	"fmt"
	"log"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/client/inprocess"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// A unit test of an application's tool with the real client, in-process.
func Example() {
	srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "app", Version: "1.0.0"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	type addArgs struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	fastmcp.AddTool(srv, fastmcp.Tool{Name: "add", Description: "Adds two integers"},
		func(_ context.Context, _ *fastmcp.Request, in addArgs) (fastmcp.ToolResult, error) {
			return fastmcp.ToolResult{Text: fmt.Sprint(in.A + in.B)}, nil
		})

	c, err := inprocess.Connect(srv, client.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(context.Background(), "add", map[string]int{"a": 2, "b": 3})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(res.Content))
	// Output: [{"type":"text","text":"5"}]
}
