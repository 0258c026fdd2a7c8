package transport_test

import (
	"context"
	"fmt"
	"log"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fastmcp/transport"
)

// A transport serves each message through the Endpoint: here, as over stateless HTTP, an
// initialize-era client opens with initialize and then sends its requests without _meta,
// naming the negotiated version beside them (the MCP-Protocol-Version header over HTTP; on
// stdio the connection remembers it). The transport asks Classify which dialect serves
// each message and serves it with what it knows of the client: over stateless HTTP,
// nothing but the version (Stateless). A successful initialize reports the negotiated
// state in Reply.State, for a transport that keeps it (stdio).
func ExampleEndpoint_Serve() {
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

	ep := transport.For(s)
	serve := func(msg, version string) {
		m := new(decode.Message)
		if err := ep.Decoder().Decode(m, []byte(msg)); err != nil {
			fmt.Println(string(ep.DecodeError(nil, m, err).Body))
			return
		}
		d, refusal := ep.Classify(m, []byte(version), version != "")
		if refusal != nil {
			fmt.Println(refusal.Code, refusal.Message, string(refusal.Data))
			return
		}
		st := ep.Stateless(d)
		reply := ep.Serve(context.Background(), &st, m, nil, nil)
		fmt.Println(string(reply.Body))
		if reply.State != nil {
			fmt.Println("negotiated", reply.State.Dialect)
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
