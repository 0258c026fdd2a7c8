// Command clientonly is a program that only dials servers: it prints how many goroutines run
// when main starts, which is what importing package client started (TestClientStartsNoGoroutines).
package main

import (
	"context"
	"fmt"
	"runtime"

	"github.com/fastmcp-go/fastmcp/client"
)

func main() {
	fmt.Println(runtime.NumGoroutine())
	buf := make([]byte, 1<<16)
	fmt.Printf("%s", buf[:runtime.Stack(buf, true)])
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // connects to nothing: only the import is measured
	if c, err := client.Connect(ctx, "http://127.0.0.1:1/mcp", client.Config{}); err == nil {
		_ = c.Close()
	}
}
