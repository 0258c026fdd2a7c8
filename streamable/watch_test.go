package streamable

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// execution names the two ways a request runs: on its connection's goroutine (watched by the
// tick) or on an executor worker (watched by the connection's goroutine).
var executions = []struct {
	name string
	cfg  ListenerConfig
}{{"inline", ListenerConfig{}}, {"worker", ListenerConfig{DisableInline: true}}}

// awaitEnd returns how the blocked handler ended, failing the test if it does not.
func awaitEnd(t *testing.T, b *blocker) error {
	t.Helper()
	select {
	case err := <-b.ended:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("the handler was not cancelled")
		return nil
	}
}

// A disconnect cancels the running request even when the client sent more bytes first (a
// pipelined request, or a stray byte): the watch keeps the bytes and goes on watching.
func TestDisconnectAfterPipelinedBytes(t *testing.T) {
	for _, ex := range executions {
		for _, extra := range []struct{ name, raw string }{{"pipelined request", ""}, {"stray byte", "x"}} {
			t.Run(ex.name+"/"+extra.name, func(t *testing.T) {
				core := newCore(t)
				b := newBlocker(t, core)
				s := startServer(t, core, ex.cfg)
				c := dial(t, s)
				_, err := io.WriteString(c, post(s, call("1", "block", `{}`), callHeaders("block")...))
				require.NoError(t, err)
				<-b.started // the request was read in full: what follows reaches the watch
				more := extra.raw
				if more == "" {
					more = post(s, call("2", "echo", `{"text":"x"}`), callHeaders("echo")...)
				}
				_, err = io.WriteString(c, more)
				require.NoError(t, err)
				require.NoError(t, c.Close())
				assert.ErrorIs(t, awaitEnd(t, b), context.Canceled)
				require.Eventually(t, func() bool { return s.Stats().Disconnects == 1 }, 5*time.Second, time.Millisecond)
				resp, _ := exchange(t, s, post(s, call("3", "echo", `{"text":"x"}`), callHeaders("echo")...))
				assert.Equal(t, http.StatusOK, resp.StatusCode)
			})
		}
	}
}

// What the watch takes of a pipelined request is served after the slow one, in order.
func TestPipelinedDuringWatchServed(t *testing.T) {
	for _, ex := range executions {
		t.Run(ex.name, func(t *testing.T) {
			core := newCore(t)
			b := newBlocker(t, core)
			s := startServer(t, core, ex.cfg)
			c := dial(t, s)
			_, err := io.WriteString(c, post(s, call("1", "block", `{}`), callHeaders("block")...))
			require.NoError(t, err)
			<-b.started
			// Two requests, the first in two writes, all taken by the watch.
			second := post(s, call("2", "echo", `{"text":"second"}`), callHeaders("echo")...)
			third := post(s, call("3", "echo", `{"text":"third"}`), callHeaders("echo")...)
			for _, part := range []string{second[:20], second[20:] + third} {
				_, err = io.WriteString(c, part)
				require.NoError(t, err)
			}
			conn := serverConn(t, s)
			require.Eventually(t, func() bool {
				conn.mu.Lock()
				defer conn.mu.Unlock()
				return len(conn.stash) == len(second)+len(third)
			}, 5*time.Second, time.Millisecond, "the watch takes both requests")
			close(b.release)
			br := bufio.NewReader(c)
			for _, want := range []string{"released", "second", "third"} {
				resp, body := readResponse(t, br)
				assert.Equal(t, http.StatusOK, resp.StatusCode)
				assert.Contains(t, body, `"text":"`+want+`"`)
			}
			assert.Zero(t, s.Stats().Disconnects)
		})
	}
}

// serverConn returns the server's only open connection.
func serverConn(t *testing.T, s *Server) *conn {
	t.Helper()
	var all []*conn
	require.Eventually(t, func() bool {
		all = s.ln.conns.all()
		return len(all) == 1
	}, 5*time.Second, time.Millisecond)
	return all[0]
}

// The watch keeps at most stashCap bytes: past it, it stops reading (the client is then held
// back by TCP flow control) and a disconnect is no longer seen; what it kept is read first.
func TestWatchStashBounded(t *testing.T) {
	var clock atomic.Int64
	l := &listener{max: 8, stats: &counters{}, clock: &clock, stashMax: 1024}
	c, peer := acceptPair(t, l)
	gone := c.watch(nil)
	sent := strings.Repeat("0123456789abcdef", 1024/16+8) // the cap and 128 bytes
	_, err := io.WriteString(peer, sent)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.stash) == 1024
	}, 5*time.Second, time.Millisecond)
	// Full: the watch has stopped, so the close goes unseen until the connection is read.
	select {
	case <-c.watchDone:
		c.watchDone <- struct{}{} // for unwatch
	case <-time.After(5 * time.Second):
		t.Fatal("the watch did not stop at its cap")
	}
	require.NoError(t, peer.Close())
	assert.False(t, c.unwatch())
	select {
	case <-gone:
		t.Fatal("reported gone")
	default:
	}
	got, err := io.ReadAll(c)
	require.NoError(t, err)
	assert.Equal(t, sent, string(got), "the stash, then the rest, in order")
}

// Half-close: a client that shuts down its sending side (shutdown(SHUT_WR)) while its request
// runs cannot be told from one that closed, and is treated the same: the request is cancelled
// and nothing is written, never an empty 200. The connection closes.
func TestHalfCloseDuringRequest(t *testing.T) {
	for _, ex := range executions {
		t.Run(ex.name, func(t *testing.T) {
			core := newCore(t)
			b := newBlocker(t, core)
			s := startServer(t, core, ex.cfg)
			c := dial(t, s)
			_, err := io.WriteString(c, post(s, call("1", "block", `{}`), callHeaders("block")...))
			require.NoError(t, err)
			<-b.started
			require.NoError(t, c.(*net.TCPConn).CloseWrite())
			assert.ErrorIs(t, awaitEnd(t, b), context.Canceled)
			got, err := io.ReadAll(c)
			require.NoError(t, err, "closed by the server")
			assert.Empty(t, string(got), "no response")
			require.Eventually(t, func() bool { return s.Stats().Disconnects == 1 }, 5*time.Second, time.Millisecond)
		})
	}
}
