package sse_test

import (
	"bufio"
	"context"
	"fmt"
	"os"

	"github.com/fastmcp-go/fastmcp/sse"
)

// A progress stream: two messages, then the final response ends the stream
// by closing the channel. Over HTTP the *bufio.Writer is the one the server
// hands to a streaming response body.
func ExampleWriter_Run() {
	bw := bufio.NewWriter(os.Stdout)
	sw, err := sse.NewWriter(bw, nil, sse.Config{})
	if err != nil {
		panic(err)
	}

	events := make(chan []byte, 2)
	go func() {
		events <- []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p-9","progress":50}}`)
		events <- []byte(`{"jsonrpc":"2.0","id":9,"result":{"content":[]}}`)
		close(events)
	}()
	if err := sw.Run(context.Background(), events); err != nil {
		fmt.Println("stream ended:", err)
	}
	// Output:
	// event: message
	// data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p-9","progress":50}}
	//
	// event: message
	// data: {"jsonrpc":"2.0","id":9,"result":{"content":[]}}
}

// Line breaks in data become separate data: lines, so data cannot end the
// event or start another one.
func ExampleWriter_WriteEvent() {
	sw, err := sse.NewWriter(os.Stdout, nil, sse.Config{})
	if err != nil {
		panic(err)
	}
	_ = sw.WriteEvent([]byte("{\r\n\"a\": 1\n}\nevent: evil"))
	// Output:
	// event: message
	// data: {
	// data: "a": 1
	// data: }
	// data: event: evil
}

// A caller driving its own loop writes a keepalive comment whenever the
// stream has been idle; a failed keepalive means the client has gone.
func ExampleWriter_WriteKeepAlive() {
	sw, err := sse.NewWriter(os.Stdout, nil, sse.Config{})
	if err != nil {
		panic(err)
	}
	if err := sw.WriteKeepAlive(); err != nil {
		fmt.Println("client gone:", err)
	}
	_ = sw.WriteEventID("7", []byte(`{}`))
	// Output:
	// : keepalive
	//
	// id: 7
	// event: message
	// data: {}
}
