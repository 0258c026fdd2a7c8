package gateway

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/client"
)

// TestBadBackendHangDoesNotBlock: while a call to a backend that never answers is in
// flight, calls to the other backend and to the hung backend's other tools are answered;
// the caller's cancellation ends the hung call, and the backend sees its request end.
func TestBadBackendHangDoesNotBlock(t *testing.T) {
	p, urlBad, _ := newBadBackend(t, "bad")
	urlGood, _ := serveHTTP(t, newBackendServer("good", nil), "", nil)
	g, gw := startGateway(t, Config{Backends: []Backend{{Name: "bad", URL: urlBad}, {Name: "good", URL: urlGood}},
		Client: client.Config{RequestTimeout: time.Minute}})
	require.True(t, g.Status()[0].Up, "%v", g.Status()[0].Err)
	c := connect(t, gw, client.EraModern)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	hctx, hcancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := c.CallTool(hctx, "bad__"+badHang, nil)
		done <- err
	}()
	<-p.hangs
	for range 5 {
		echoes(t, ctx, c, "good__echo", "good: still")
		echoes(t, ctx, c, "bad__echo", "bad: still")
	}
	select {
	case err := <-done:
		t.Fatalf("the hung call ended before its caller left it: %v", err)
	default:
	}
	hcancel()
	require.ErrorIs(t, <-done, context.Canceled)
	<-p.hangEnded
}

// TestBadBackendHangTimesOut: calls to a backend that never answers end at the client's
// RequestTimeout with the timeout error, however many are made at once, and leave no
// goroutine behind; the backend stays up.
func TestBadBackendHangTimesOut(t *testing.T) {
	p, urlBad, _ := newBadBackend(t, "bad")
	urlGood, _ := serveHTTP(t, newBackendServer("good", nil), "", nil)
	// Every hung call reaches the backend: its breaker would refuse them after five.
	g, gw := startGateway(t, Config{Backends: []Backend{{Name: "bad", URL: urlBad, BreakerFailures: 1000}, {Name: "good", URL: urlGood}},
		Client: client.Config{RequestTimeout: 200 * time.Millisecond}})
	require.True(t, g.Status()[0].Up, "%v", g.Status()[0].Err)
	c := connect(t, gw, client.EraModern)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	want := client.Error{Code: -32603, Message: `Backend "bad" did not answer in time`, Data: []byte(`{"backend":"bad"}`)}

	hangAll := func(n int) {
		var wg sync.WaitGroup
		errs := make(chan client.Error, n)
		for range n {
			wg.Go(func() { errs <- callError(t, ctx, c, "bad__"+badHang) })
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			assert.Equal(t, want, e)
		}
		for range n {
			<-p.hangEnded
		}
	}
	hangAll(8) // connections and pools warm
	echoes(t, ctx, c, "good__echo", "good: still")
	base := runtime.NumGoroutine()
	for range 3 {
		hangAll(8)
	}
	t.Logf("goroutines: %d after the first 8 hung calls, %d after 24 more", base, runtime.NumGoroutine())
	// The calls have ended and the backend saw each request end; what the gateway and its
	// client ran for them winds down after.
	waitFor(t, "the goroutines of the hung calls to end", func() bool { return runtime.NumGoroutine() <= base+2 })
	echoes(t, ctx, c, "good__echo", "good: still")
	echoes(t, ctx, c, "bad__echo", "bad: still")
	assert.True(t, g.Status()[0].Up)
}
