package client_test

import (
	"context"
	"fmt"
	"log"

	"github.com/fastmcp-go/fastmcp/client"
)

// Starting a server over stdio: the target is empty and Config.Command names the program.
// EraAuto probes server/discover and falls back to initialize for an initialize-era server
// (after DefaultProbeTimeout when it stays silent). It has no Output: it needs the binary.
func ExampleConnect_stdio() {
	c, err := client.Connect(context.Background(), "", client.Config{
		Command: "fastmcp-bench",
		Args:    []string{"serve", "--stdio", "--fixtures", "demo"},
		Era:     client.EraAuto,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close() // closes its input, waits DefaultCloseTimeout, then kills it
	res, err := c.CallTool(context.Background(), "echo", map[string]string{"text": "hi"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(c.ProtocolVersion(), string(res.Content))
}
