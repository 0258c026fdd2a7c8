package fastmcp_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// printSink prints each notification and then signals it was written.
type printSink chan struct{}

func (k printSink) Notify(_ context.Context, msg []byte) error {
	fmt.Println(string(msg))
	k <- struct{}{}
	return nil
}

// A transport serves subscriptions/listen like any request, with a sink for the stream's
// notifications: Handle (here Dispatch) returns when the stream ends. CloseSubscriptions ends
// every stream with its completion response, as a transport does when it drains.
func ExampleServer_CloseSubscriptions() {
	s, err := fastmcp.NewServer(fastmcp.Implementation{Name: "demo", Version: "1.0.0"}, nil)
	if err != nil {
		panic(err)
	}
	noop := func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
		return fastmcp.ToolResult{}, nil
	}
	s.AddRawTool(fastmcp.Tool{Name: "a", InputSchema: json.RawMessage(`{"type":"object"}`)}, noop)

	listen := `{"jsonrpc":"2.0","id":"l1","method":"subscriptions/listen","params":{` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},` +
		`"notifications":{"toolsListChanged":true,"promptsListChanged":true}}}`
	sink := make(printSink)
	reply := make(chan []byte)
	go func() { reply <- s.Dispatch(context.Background(), []byte(listen), sink) }()
	<-sink // the acknowledgement: no prompts are registered, so only tools are honoured

	s.AddRawTool(fastmcp.Tool{Name: "b", InputSchema: json.RawMessage(`{"type":"object"}`)}, noop)
	<-sink // tools/list_changed

	s.CloseSubscriptions()
	fmt.Println(string(<-reply))
	// Output:
	// {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"l1"},"notifications":{"toolsListChanged":true}}}
	// {"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"l1"}}}
	// {"jsonrpc":"2.0","id":"l1","result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"demo","version":"1.0.0"},"io.modelcontextprotocol/subscriptionId":"l1"}}}
}
