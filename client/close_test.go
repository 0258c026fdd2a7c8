package client

import (
	"bufio"
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// holdingFake is a sessionful initialize-era server that, like go-sdk's and mcp-go's,
// answers the session's GET with an event stream it then holds open, sending nothing. It
// counts the session DELETEs it receives.
type holdingFake struct {
	*fakeServer
	deletes atomic.Int64
}

func newHoldingFake(t *testing.T) *holdingFake {
	hf := &holdingFake{}
	hf.fakeServer = newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		switch head := string(r.head); {
		case strings.HasPrefix(head, "GET "):
			// The head only; the connection loop then waits for a next request that never
			// comes, holding the stream open until the client closes it.
			w.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
			return true
		case strings.HasPrefix(head, "DELETE "):
			hf.deletes.Add(1)
			w.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
			return true
		}
		if id := idOf(r.body); id != "" {
			jsonResp(w, `{"jsonrpc":"2.0","id":`+id+`,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`,
				"Mcp-Session-Id: sess-1")
			return true
		}
		w.WriteString("HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")
		return true
	})
	return hf
}

// closeWithin closes c and fails the test when Close has not returned by the bound.
func closeWithin(t *testing.T, c *Client, bound time.Duration) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.Close() }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(bound):
		t.Fatalf("Close did not return within %v", bound)
	}
}

// Issue 21, 1: Close cancels the session's GET stream while its reader is between the
// response head and lifting the head's deadline. Cancelling by deadline lost that race (the
// reader cleared the past deadline the cancel had just set) and Close waited forever for
// a stream nothing would end. The hooks hold the reader exactly there until the cancel has
// been applied.
func TestCloseWhileStreamOpens(t *testing.T) {
	hf := newHoldingFake(t)
	paused := make(chan struct{})
	cancelled := make(chan struct{})
	var pause, cancel1 sync.Once // each closes its channel once, whatever else calls the hook
	streamHead := func() {
		pause.Do(func() { close(paused) })
		select {
		case <-cancelled:
		case <-time.After(10 * time.Second): // the cancel never came: let the test fail on Close
		}
	}
	onCancel := func() { cancel1.Do(func() { close(cancelled) }) }
	testHookStreamHead.Store(&streamHead)
	testHookCancelled.Store(&onCancel)
	t.Cleanup(func() { testHookStreamHead.Store(nil); testHookCancelled.Store(nil) })

	c, err := Connect(context.Background(), hf.url(), Config{Era: EraLegacy})
	require.NoError(t, err)
	<-paused
	closeWithin(t, c, 5*time.Second)
}

// Issue 21, 1: connect in the initialize era and Close, 1,000 times, against a server that
// holds the session's GET stream open: no Close hangs.
func TestConnectCloseLoop(t *testing.T) {
	hf := newHoldingFake(t)
	n := 1000
	if testing.Short() {
		n = 100
	}
	for i := range n {
		c, err := Connect(context.Background(), hf.url(), Config{Era: EraLegacy})
		require.NoError(t, err, "connect %d", i)
		closeWithin(t, c, 10*time.Second)
	}
	assert.Equal(t, int64(n), hf.deletes.Load(), "every Close ended its session with DELETE")
}

// Issue 21, 1, the modern long-lived round trip: Subscription.Close while the listen
// stream's reader is between its head and lifting the head's deadline.
func TestListenCloseWhileStreamOpens(t *testing.T) {
	f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		// The stream's head, then nothing: no acknowledgement, and the stream stays open.
		w.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
		return true
	})
	c := connect(t, f.url(), Config{Era: EraModern})
	paused := make(chan struct{})
	cancelled := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	var pause, cancel1 sync.Once // each closes its channel once, whatever else calls the hook
	streamHead := func() {
		pause.Do(func() { close(paused) })
		cancel() // as Subscription.Close does, before the acknowledgement is read
		select {
		case <-cancelled:
		case <-time.After(10 * time.Second):
		}
	}
	onCancel := func() { cancel1.Do(func() { close(cancelled) }) }
	testHookStreamHead.Store(&streamHead)
	testHookCancelled.Store(&onCancel)
	t.Cleanup(func() { testHookStreamHead.Store(nil); testHookCancelled.Store(nil) })

	done := make(chan error, 1)
	go func() {
		_, err := c.Listen(ctx, ListenFilter{ToolsListChanged: true})
		done <- err
	}()
	<-paused
	select {
	case err := <-done:
		require.Error(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Listen did not end with its context")
	}
}
