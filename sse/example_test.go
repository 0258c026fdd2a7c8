package sse_test

import (
	"bufio"
	"context"
	"fmt"
	"os"

	"github.com/fastmcp-go/fastmcp/sse"
)

// A listen stream: events as they come, and a keepalive comment after each
// KeepAliveInterval of silence until the stream ends; a failed keepalive
// means the client has gone.
func ExampleWriter_KeepAlive() {
	bw := bufio.NewWriter(os.Stdout)
	sw, err := sse.NewWriter(bw, nil, sse.Config{})
	if err != nil {
		panic(err)
	}
	ctx, clientGone := context.WithCancel(context.Background())
	defer clientGone()
	stop := sw.KeepAlive(clientGone)
	defer stop()

	_ = sw.WriteEvent([]byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`))
	if ctx.Err() != nil {
		fmt.Println("client gone")
	}
	// Output:
	// event: message
	// data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}
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
