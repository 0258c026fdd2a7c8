// Command call calls one tool on an MCP server of either era (2026-07-28, or the
// initialize handshake of 2025-11-25 and 2025-06-18) and prints its text result.
//
//	go run ./examples/call http://127.0.0.1:8080/mcp echo '{"text":"hi"}'
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/fastmcp-go/fastmcp/client"
)

func main() {
	if len(os.Args) != 4 {
		log.Fatal("usage: call URL TOOL '{\"json\":\"args\"}'")
	}
	cfg := client.Config{} // the default era: server/discover, else initialize
	if err := call(context.Background(), os.Stdout, cfg, os.Args[1], os.Args[2], os.Args[3]); err != nil {
		log.Fatal(err)
	}
}

// call calls tool on the server at url with args, a JSON object, and writes each text
// block of the result to w, one a line. A tool's own failure (isError) is an error.
func call(ctx context.Context, w io.Writer, cfg client.Config, url, tool, args string) error {
	if !json.Valid([]byte(args)) {
		return fmt.Errorf("arguments are not JSON: %s", args)
	}
	c, err := client.Connect(ctx, url, cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	res, err := c.CallTool(ctx, tool, json.RawMessage(args))
	if err != nil {
		return err
	}
	var blocks []struct{ Type, Text string }
	if err := json.Unmarshal(res.Content, &blocks); err != nil {
		return fmt.Errorf("result of %s: %w", tool, err)
	}
	for _, b := range blocks {
		if b.Type == "text" {
			fmt.Fprintln(w, b.Text)
		}
	}
	if res.IsError {
		return fmt.Errorf("tool %s failed", tool)
	}
	return nil
}
