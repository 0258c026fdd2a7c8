//go:build !race

package streamable

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp/fasthttputil"
)

// TestAllocsListener pins the allocations of a keep-alive tools/call through the whole native
// listener (admission, decode, executor, dispatch, write): the core's two (its Request and the
// string arguments' buffer), none in the transport.
func TestAllocsListener(t *testing.T) {
	s, err := New(newCore(t), Config{Addr: "127.0.0.1:0", DisableInline: os.Getenv("FASTMCP_NOINLINE") != ""})
	require.NoError(t, err)
	ln := fasthttputil.NewInmemoryListener()
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
		<-done
	}()
	body := call("1", "echo", `{"text":"hello, world"}`)
	req := []byte("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n" +
		"Mcp-Method: tools/call\r\nMcp-Name: echo\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
	c, err := ln.Dial()
	require.NoError(t, err)
	defer c.Close()
	br := bufio.NewReaderSize(c, 4096)
	roundTrip := func() {
		_, err := c.Write(req)
		require.NoError(t, err)
		require.NoError(t, readOne(br))
	}
	for range 100 { // warm the pools and caches
		roundTrip()
	}
	assert.LessOrEqual(t, testing.AllocsPerRun(2000, roundTrip), 2.0)
}
