package fastmcp_test

import (
	"context"
	"fmt"
	"log"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// An initialize-era client opens with initialize and then sends its requests without _meta,
// naming the negotiated version beside them (the MCP-Protocol-Version header over HTTP; on
// stdio the connection remembers it). A transport asks Classify which dialect serves each
// message and hands legacy ones to HandleLegacy, with what it knows of the client: here,
// as over stateless HTTP, nothing but the version. A successful initialize reports the
// negotiated state in Reply.Client, for a transport that keeps it (stdio).
func ExampleServer_HandleLegacy() {
	s, err := fastmcp.NewServer(fastmcp.Implementation{Name: "echo", Version: "1.0.0"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	type in struct {
		Text string `json:"text"`
	}
	fastmcp.AddTool(s, fastmcp.Tool{Name: "echo", Description: "Echoes its text"},
		func(ctx context.Context, r *fastmcp.Request, a in) (fastmcp.ToolResult, error) {
			return fastmcp.ToolResult{Text: a.Text}, nil
		})

	serve := func(msg, version string) {
		m := new(decode.Message)
		if err := s.Decoder().Decode(m, []byte(msg)); err != nil {
			log.Fatal(err)
		}
		d, refusal := s.Classify(m, []byte(version), version != "")
		if refusal != nil {
			fmt.Println(refusal.Code, refusal.Message, string(refusal.Data))
			return
		}
		c := &fastmcp.LegacyClient{Dialect: d, LogLevel: s.LegacyLogLevel()}
		reply := s.HandleLegacy(context.Background(), m, c, nil, nil)
		fmt.Println(string(reply.Body))
		if reply.Client != nil {
			fmt.Println("negotiated", reply.Client.Dialect)
		}
	}
	serve(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"old-client","version":"0.1"}}}`, "")
	serve(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`, "2025-06-18")
	serve(`{"jsonrpc":"2.0","id":3,"method":"ping"}`, "2024-11-05")
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"logging":{},"tools":{}},"serverInfo":{"name":"echo","version":"1.0.0"}}}
	// negotiated 2025-06-18
	// {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi"}]}}
	// -32022 Unsupported protocol version {"supported":["2026-07-28","2025-11-25","2025-06-18"],"requested":"2024-11-05"}
}
