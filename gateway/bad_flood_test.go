package gateway

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// TestBadBackendListChangedCoalesced: list_changed notifications that come while a catalog
// re-read runs cost one more re-read, not one each.
func TestBadBackendListChangedCoalesced(t *testing.T) {
	p, urlBad, _ := newBadBackend(t, "bad")
	p.ownListen.Store(true)
	g, _ := startGateway(t, Config{Backends: []Backend{{Name: "bad", URL: urlBad}}})
	require.True(t, g.Status()[0].Up, "%v", g.Status()[0].Err)
	<-p.listening
	b := g.backends[0]
	lists, rereads, heard := p.lists.Load(), b.rereads.Load(), b.listChanged.Load()

	release := p.holdLists()
	p.floods <- 1
	<-p.listHeld // the first re-read waits
	// 60 more while it waits: fewer than the client's ListenBuffer (64), so none is dropped
	// however slowly the gateway takes them.
	p.floods <- 60
	waitFor(t, "the gateway to take the 61 notifications", func() bool { return b.listChanged.Load() == heard+61 })
	releaseNext := p.holdLists()
	release()
	<-p.listHeld // the one pending re-read
	assert.Equal(t, lists+2, p.lists.Load(), "61 notifications, 2 re-reads")
	releaseNext()
	waitFor(t, "the second re-read to end", func() bool { return b.rereads.Load() == rereads+2 })

	// Nothing was left pending: the next notification is the next re-read.
	p.floods <- 1
	waitFor(t, "the third re-read to end", func() bool { return b.rereads.Load() == rereads+3 })
	assert.Equal(t, lists+3, p.lists.Load())
	assert.Equal(t, heard+62, b.listChanged.Load())
	assert.Equal(t, 1, g.Status()[0].Connections)
}

// TestBadBackendListChangedFlood: a backend that sends list_changed without pause leaves the
// gateway answering calls to it and to the other backend, its heap where it was, and its
// re-reads far fewer than the notifications.
func TestBadBackendListChangedFlood(t *testing.T) {
	p, urlBad, _ := newBadBackend(t, "bad")
	p.ownListen.Store(true)
	urlGood, _ := serveHTTP(t, newBackendServer("good", nil), "", nil)
	g, gw := startGateway(t, Config{Backends: []Backend{{Name: "bad", URL: urlBad}, {Name: "good", URL: urlGood}}})
	require.True(t, g.Status()[0].Up, "%v", g.Status()[0].Err)
	<-p.listening
	c := connect(t, gw, client.EraModern)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b := g.backends[0]

	const floods, each = 20, 1000
	flood := func() {
		for range floods {
			p.floods <- each
			echoes(t, ctx, c, "good__echo", "good: still")
			echoes(t, ctx, c, "bad__echo", "bad: still")
		}
	}
	flood() // pools and buffers warm
	live0, _ := heapAfterGC()
	rereads, heard := b.rereads.Load(), b.listChanged.Load()
	flood()
	live1, _ := heapAfterGC()
	t.Logf("%d list_changed sent, %d taken, %d re-reads; live heap %+.1f MiB", floods*each,
		b.listChanged.Load()-heard, b.rereads.Load()-rereads, (float64(live1)-float64(live0))/(1<<20))
	assert.Less(t, int64(live1)-int64(live0), int64(4<<20), "live heap growth")
	assert.Less(t, b.rereads.Load()-rereads, int64(floods*each/10), "re-reads")
	st := g.Status()[0]
	assert.True(t, st.Up)
	assert.Equal(t, 1, st.Connections)
}

// TestBadBackendProgressFlood: a backend that sends log messages (and progress, up to its
// Server's bound) without pause during a call leaves the gateway answering other calls while it runs (the caller gets the
// messages as they come, nothing piles up in the gateway's heap), and the caller's
// cancellation ends it.
func TestBadBackendProgressFlood(t *testing.T) {
	started, cancelled := make(chan struct{}, 1), make(chan struct{}, 1)
	core := newBackendServer("chatty", nil)
	fastmcp.AddTool(core, fastmcp.Tool{Name: "flood", Description: "progress and log messages until cancelled"},
		func(ctx context.Context, r *fastmcp.Request, in struct{}) (fastmcp.ToolResult, error) {
			started <- struct{}{}
			for n := 1.0; ctx.Err() == nil; n++ {
				_ = r.Progress(ctx, n, 0, "")
				_ = r.Log(ctx, fastmcp.LogInfo, "flood", []byte(`"again"`))
			}
			cancelled <- struct{}{}
			return fastmcp.ToolResult{}, ctx.Err()
		})
	urlChatty, _ := serveHTTP(t, core, "", nil)
	urlGood, _ := serveHTTP(t, newBackendServer("good", nil), "", nil)
	g, gw := startGateway(t, Config{Backends: []Backend{{Name: "chatty", URL: urlChatty}, {Name: "good", URL: urlGood}}})
	require.True(t, g.Status()[0].Up, "%v", g.Status()[0].Err)
	c := connect(t, gw, client.EraModern)
	other := connect(t, gw, client.EraModern)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	const mark = 2000 // log messages between heap measures
	reached := make(chan struct{}, 3)
	fctx, fcancel := context.WithCancel(ctx)
	defer fcancel()
	done := make(chan error, 1)
	var logs int
	go func() {
		// Progress too, which the backend's Server stops at fastmcp.MaxProgressUpdates.
		_, err := c.CallTool(fctx, "chatty__flood", nil, client.WithProgress(func(client.Progress) {}),
			client.WithLog("info", func(client.LogMessage) {
				if logs++; logs%mark == 0 {
					select {
					case reached <- struct{}{}:
					default:
					}
				}
			}))
		done <- err
	}()
	<-started
	// The live heap at a mark holds the messages in flight at that moment, a bounded but
	// varying amount: each side of the comparison is the least of two marks' readings.
	settled := func() uint64 {
		<-reached
		a, _ := heapAfterGC()
		<-reached
		b, _ := heapAfterGC()
		return min(a, b)
	}
	live0 := settled()
	for range 5 {
		echoes(t, ctx, other, "good__echo", "good: still")
		echoes(t, ctx, other, "chatty__echo", "chatty: still")
	}
	<-reached
	live1 := settled()
	t.Logf("live heap %+.1f MiB over %d log messages", (float64(live1)-float64(live0))/(1<<20), 3*mark)
	assert.Less(t, int64(live1)-int64(live0), int64(4<<20), "live heap growth")
	select {
	case err := <-done:
		t.Fatalf("the flooding call ended before its caller left it: %v", err)
	default:
	}
	fcancel()
	require.ErrorIs(t, <-done, context.Canceled)
	<-cancelled
}
