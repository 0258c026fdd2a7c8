package streamable

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// holdDrainDelay replaces the DrainDelay timer: started receives the delay asked for when it
// begins, and the delay ends when the test closes the returned channel.
func holdDrainDelay(t *testing.T) (started <-chan time.Duration, end chan<- time.Time) {
	begun := make(chan time.Duration, 1)
	release := make(chan time.Time)
	drainDelayTimer = func(d time.Duration) <-chan time.Time {
		begun <- d
		return release
	}
	t.Cleanup(func() { drainDelayTimer = func(d time.Duration) <-chan time.Time { return time.After(d) } })
	return begun, release
}

// delayBegins waits (boundedly) for Shutdown to begin its DrainDelay and returns its length.
func delayBegins(t *testing.T, started <-chan time.Duration) time.Duration {
	t.Helper()
	select {
	case d := <-started:
		return d
	case <-time.After(10 * time.Second):
		t.Fatal("Shutdown began no DrainDelay")
		return 0
	}
}

// With DrainDelay, Shutdown first turns /readyz to 503 and goes on accepting connections and
// serving requests for the delay; only then does the listener close (new connections
// refused, a head still arriving answered 503) and the drain finish what is in flight.
func TestDrainDelayReadinessBeforeClose(t *testing.T) {
	started, end := holdDrainDelay(t)
	s, b, served := startUnmanaged(t, ListenerConfig{ServeHealth: true, DrainDelay: time.Hour})
	readyz := "GET /readyz HTTP/1.1\r\nHost: " + hostOf(s) + "\r\nConnection: close\r\n\r\n"
	resp, body := exchange(t, s, readyz)
	require.Equal(t, http.StatusOK, resp.StatusCode, "serving: ready")
	require.Equal(t, "ready\n", body)
	inflight := dial(t, s)
	_, _ = io.WriteString(inflight, post(s, call("1", "block", `{}`), callHeaders("block")...))
	<-b.started

	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown(context.Background()) }()
	assert.Equal(t, time.Hour, delayBegins(t, started))

	assert.False(t, s.Ready())
	resp, body = exchange(t, s, readyz)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "not ready from Shutdown's first moment")
	assert.Equal(t, "not ready\n", body)
	resp, body = exchange(t, s, post(s, call("2", "echo", `{"text":"during the delay"}`), callHeaders("echo")...))
	assert.Equal(t, http.StatusOK, resp.StatusCode, "a new connection is still accepted and served")
	assert.Contains(t, body, `"text":"during the delay"`)
	assert.Empty(t, resp.Header.Get("Connection"), "and kept alive")
	partial := dial(t, s)
	_, _ = io.WriteString(partial, "POST /mcp HTTP/1.1\r\n")
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned during its delay: %v", err)
	default:
	}

	close(end)
	resp, body = readResponse(t, bufio.NewReader(partial)) // the drain has begun
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Server is shutting down"}}`, body)
	_, err := net.DialTimeout("tcp", hostOf(s), time.Second)
	assert.Error(t, err, "after the delay new connections are refused")
	close(b.release)
	resp, body = readResponse(t, bufio.NewReader(inflight))
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the request in flight is answered")
	assert.Contains(t, body, `"text":"released"`)
	require.NoError(t, <-shut)
	require.ErrorIs(t, <-served, ErrServerClosed)
}

// The delay ends when Shutdown's context does: a caller that cannot wait is not held.
func TestDrainDelayEndsWithContext(t *testing.T) {
	started, _ := holdDrainDelay(t)
	s, _, served := startUnmanaged(t, ListenerConfig{DrainDelay: time.Hour})
	resp, _ := exchange(t, s, post(s, call("1", "echo", `{"text":"hi"}`), callHeaders("echo")...))
	require.Equal(t, http.StatusOK, resp.StatusCode, "serving")
	ctx, cancel := context.WithCancel(context.Background())
	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown(ctx) }()
	delayBegins(t, started)
	cancel()
	assert.ErrorIs(t, <-shut, context.Canceled)
	require.ErrorIs(t, <-served, ErrServerClosed)
}

// A listener never served has nobody to hand over to: Shutdown does not wait its delay.
func TestDrainDelayNotServed(t *testing.T) {
	drainDelayTimer = func(time.Duration) <-chan time.Time {
		t.Error("a listener never served waited its DrainDelay")
		return nil
	}
	t.Cleanup(func() { drainDelayTimer = func(d time.Duration) <-chan time.Time { return time.After(d) } })
	s, err := New(newCore(t), ListenerConfig{Addr: "127.0.0.1:0", DrainDelay: time.Hour})
	require.NoError(t, err)
	require.NoError(t, s.Listen())
	require.NoError(t, s.Shutdown(context.Background()))
	assert.ErrorIs(t, s.Serve(), ErrServerClosed)
}
