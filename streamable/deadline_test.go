package streamable

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cutAfter reads c until the server closes it and returns how long that took and what was
// read.
func cutAfter(t *testing.T, c net.Conn, start time.Time) (time.Duration, string) {
	t.Helper()
	got, err := io.ReadAll(c)
	require.NoError(t, err, "the server closes the connection before the client's own deadline")
	return time.Since(start), string(got)
}

// ReadTimeout: a head that stops arriving is answered 400 and closed after one read's bound,
// long before HeadTimeout.
func TestReadTimeoutStalledHead(t *testing.T) {
	s := startServer(t, newCore(t), ListenerConfig{ReadTimeout: 200 * time.Millisecond, HeadTimeout: 8 * time.Second})
	c := dial(t, s)
	start := time.Now()
	_, err := io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: "+hostOf(s)+"\r\n")
	require.NoError(t, err)
	elapsed, got := cutAfter(t, c, start)
	assert.GreaterOrEqual(t, elapsed, 200*time.Millisecond)
	assert.Less(t, elapsed, 4*time.Second)
	assert.True(t, strings.HasPrefix(got, "HTTP/1.1 400 "), got)
	assert.Equal(t, int64(1), s.Stats().HeadTimeouts)
}

// BodyTimeout: a body trickled fast enough for every read's bound is still cut when the whole
// body has not arrived within BodyTimeout of the head's end.
func TestBodyTimeoutTrickle(t *testing.T) {
	s := startServer(t, newCore(t), ListenerConfig{ReadTimeout: 8 * time.Second, Config: Config{BodyTimeout: 300 * time.Millisecond}})
	c := dial(t, s)
	start := time.Now() // before the head: the body's deadline starts at its end, on the server
	_, err := io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: "+hostOf(s)+"\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n")
	require.NoError(t, err)
	done := make(chan struct{})
	go func() { // the client's trickle, until the server gives up
		defer close(done)
		for i := 0; i < 1000; i++ {
			if _, err := c.Write([]byte{' '}); err != nil {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	// The server answers and closes while the trickle goes on: its close, with trickled bytes
	// unread, resets the connection. The response arrives before the reset (a read returns
	// what was received first), so it is read as a response, and the reset is let be.
	br := bufio.NewReader(c)
	resp, body := readResponse(t, br)
	elapsed := time.Since(start)
	assert.GreaterOrEqual(t, elapsed, 300*time.Millisecond)
	assert.Less(t, elapsed, 4*time.Second)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Failed to read HTTP request"}}`, body)
	assert.True(t, resp.Close, "Connection: close")
	readToClose(t, br)
	assert.Equal(t, int64(1), s.Stats().BodyTimeouts)
	c.Close()
	<-done
}

// IdleTimeout bounds the wait for the next request on a keep-alive connection, and the
// per-read bound does not apply to that wait.
func TestIdleTimeout(t *testing.T) {
	s := startServer(t, newCore(t), ListenerConfig{ReadTimeout: 100 * time.Millisecond, IdleTimeout: time.Second})
	c := dial(t, s)
	br := bufio.NewReader(c)
	for i := range 2 {
		_, err := io.WriteString(c, post(s, list(strconv.Itoa(i)), "Mcp-Method: tools/list"))
		require.NoError(t, err)
		resp, _ := readResponse(t, br)
		require.Equal(t, http.StatusOK, resp.StatusCode, "request %d on the same connection", i)
		if i == 0 {
			time.Sleep(300 * time.Millisecond) // idle for three per-read bounds: not cut
		}
	}
	start := time.Now()
	_, err := br.ReadByte()
	assert.ErrorIs(t, err, io.EOF, "closed at the idle timeout without a response")
	elapsed := time.Since(start)
	assert.GreaterOrEqual(t, elapsed, time.Second)
	assert.Less(t, elapsed, 5*time.Second)
}

// acceptPair serves l on a loopback socket and returns the connection it accepts from a dial,
// with the dialling side; both close at the end of the test.
func acceptPair(t *testing.T, l *listener) (*conn, net.Conn) {
	t.Helper()
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { raw.Close() })
	l.Listener = raw
	peer, err := net.Dial("tcp", raw.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { peer.Close() })
	nc, err := l.Accept()
	require.NoError(t, err)
	t.Cleanup(func() { nc.Close() })
	return nc.(*conn), peer
}

// A write that cannot complete (the peer reads nothing) is cut at its write deadline by the
// tick, and the next write after a new deadline works again.
func TestWriteDeadlineCut(t *testing.T) {
	var clock atomic.Int64
	l := &listener{max: 8, stats: &counters{}, clock: &clock}
	nc, peer := acceptPair(t, l)

	stop := make(chan struct{})
	ticked := make(chan struct{})
	go func() { // the server's tick, on the real clock
		defer close(ticked)
		tk := time.NewTicker(tickInterval)
		defer tk.Stop()
		for {
			select {
			case <-stop:
				return
			case now := <-tk.C:
				clock.Store(now.UnixNano())
				l.onTick(now.UnixNano(), 0, nil)
			}
		}
	}()
	defer func() { close(stop); <-ticked }()

	require.NoError(t, nc.SetWriteDeadline(time.Now().Add(200*time.Millisecond)))
	start := time.Now()
	chunk := make([]byte, 256<<10)
	var err error
	for err == nil {
		_, err = nc.Write(chunk) // fills the socket buffers, then blocks
	}
	assert.ErrorIs(t, err, os.ErrDeadlineExceeded)
	assert.GreaterOrEqual(t, time.Since(start), 200*time.Millisecond)

	go func() { _, _ = io.Copy(io.Discard, peer) }()
	require.NoError(t, nc.SetWriteDeadline(time.Now().Add(5*time.Second)))
	_, err = nc.Write([]byte("more"))
	assert.NoError(t, err, "a new deadline lifts the cut")
}

// The tick's pass reads one cache line per connection.
func TestConnStateIsOneCacheLine(t *testing.T) {
	assert.Equal(t, uintptr(64), unsafe.Sizeof(connState{}))
}

// Slots are reused after a connection closes, and a pass sees exactly the open ones.
func TestConnTableReuse(t *testing.T) {
	var tb connTable
	ids := func() []uint64 {
		var out []uint64
		for _, c := range tb.all() {
			out = append(out, c.id)
		}
		return out
	}
	a, b, c := &conn{id: 1}, &conn{id: 2}, &conn{id: 3}
	tb.add(a)
	tb.add(b)
	a.st.readAt.Store(42)
	tb.remove(a.slot)
	tb.add(c)
	assert.Equal(t, a.slot, c.slot, "the freed slot is reused")
	assert.Same(t, a.st, c.st)
	assert.Zero(t, c.st.readAt.Load(), "a reused slot starts clear")
	assert.ElementsMatch(t, []uint64{2, 3}, ids())
	for i := range 2 * chunkSlots {
		tb.add(&conn{id: uint64(10 + i)})
	}
	assert.Len(t, ids(), 2+2*chunkSlots)
	tb.remove(b.slot)
	assert.NotContains(t, ids(), uint64(2))
	assert.Len(t, ids(), 1+2*chunkSlots)
}

// A cut that lands on a read whose own deadlines have not passed (the tick raced a new read)
// is retried: the read returns the bytes that arrive next, not a timeout.
func TestSpuriousCutRetried(t *testing.T) {
	var clock atomic.Int64
	l := &listener{max: 8, stats: &counters{}, clock: &clock, readTimeout: time.Minute}
	c, peer := acceptPair(t, l)

	got := make(chan string, 1)
	go func() {
		buf := make([]byte, 16)
		n, err := c.Read(buf)
		if err != nil {
			got <- err.Error()
			return
		}
		got <- string(buf[:n])
	}()
	require.Eventually(t, func() bool { return c.st.readSince.Load() != 0 }, 5*time.Second, time.Millisecond)
	c.mu.Lock() // what a tick that raced this read does
	_ = c.Conn.SetReadDeadline(time.Unix(1, 0))
	c.dl.readCut.Store(true)
	c.mu.Unlock()
	_, err := peer.Write([]byte("next"))
	require.NoError(t, err)
	assert.Equal(t, "next", <-got)
}

// When Serve returns without a Shutdown (its listener closed under it), the connections fasthttp
// still serves keep their deadlines, and the tick ends with the last of them.
func TestTickOutlivesServe(t *testing.T) {
	s, err := New(newCore(t), ListenerConfig{Addr: "127.0.0.1:0", IdleTimeout: 200 * time.Millisecond})
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- s.ServeListener(ln) }()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx) // stops the owned executor
	}()

	c, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
	br := bufio.NewReader(c)
	// The request names ln's address, which the test knows: s's (hostOf) is set by Serve, on
	// its goroutine, and may not be yet.
	_, err = io.WriteString(c, postTo(ln.Addr().String(), list("1"), "Mcp-Method: tools/list"))
	require.NoError(t, err)
	resp, _ := readResponse(t, br)
	require.Equal(t, http.StatusOK, resp.StatusCode)

	require.NoError(t, ln.Close())
	<-served
	_, err = br.ReadByte()
	assert.ErrorIs(t, err, io.EOF, "the idle connection is closed at IdleTimeout after Serve returned")
	select {
	case <-s.tick.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the tick did not end with the last connection")
	}
}

// Serve after (or racing) Shutdown serves nothing: it returns ErrServerClosed at once and
// closes the listener it was given, rather than serving a server that was already shut down.
func TestServeAfterShutdown(t *testing.T) {
	s, err := New(newCore(t), ListenerConfig{Addr: "127.0.0.1:0"})
	require.NoError(t, err)
	require.NoError(t, s.Shutdown(context.Background()))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- s.ServeListener(ln) }()
	select {
	case err := <-served:
		assert.ErrorIs(t, err, ErrServerClosed)
	case <-time.After(5 * time.Second):
		_ = ln.Close() // lets the Serve that went on return
		<-served
		t.Fatal("Serve served after Shutdown")
	}
	_, err = ln.Accept()
	assert.ErrorIs(t, err, net.ErrClosed, "the listener is closed")
}

// A tick that runs late left the clock standing still for longer than coarseSlack covers, so
// bounds timed from it in that gap may have started early; the tick judges bounds that much
// later for as long as such a bound can run, then no longer.
func TestTickLagDelaysBounds(t *testing.T) {
	const ms = int64(time.Millisecond)
	tk := newTicker()
	tk.hold = 1000 * ms
	var judged int64
	tk.onTick = func(now int64) { judged = now }
	t0, at := time.Now().UnixNano(), int64(0)
	tick := func(gap, lag int64, what string) {
		t.Helper()
		at += gap
		now := t0 + at*ms
		require.False(t, tk.advance(now))
		require.Equal(t, now-lag*ms, judged, "%s (at %d ms)", what, at)
		require.Equal(t, now, tk.now.Load(), "%s: the clock itself is not held back", what)
	}
	onTime := func(until, lag int64, what string) {
		t.Helper()
		for at+10 <= until {
			tick(10, lag, what)
		}
	}
	tick(0, 0, "first tick")
	onTime(100, 0, "on time")
	tick(20, 10, "10 ms late") // at 120
	onTime(500, 10, "on time, the lag held")
	tick(250, 240, "240 ms late: the larger lag") // at 750
	tick(15, 240, "5 ms late: the larger lag still")
	onTime(765+1000+10, 240, "held for the hold after the last late tick")
	tick(10, 0, "past the hold")
	onTime(2000, 0, "on time")
}

// Shutdown may be called again, from anywhere: a later call waits for the first and returns
// its result, and Serve reports ErrServerClosed, as net/http's servers do.
func TestShutdownTwice(t *testing.T) {
	s, err := New(newCore(t), ListenerConfig{Addr: "127.0.0.1:0"})
	require.NoError(t, err)
	require.NoError(t, s.Listen())
	served := make(chan error, 1)
	go func() { served <- s.Serve() }()
	resp, _ := exchange(t, s, post(s, list("1"), "Mcp-Method: tools/list")) // Serve is serving
	require.Equal(t, http.StatusOK, resp.StatusCode)

	results := make(chan error, 3)
	for range 3 {
		go func() { results <- s.Shutdown(context.Background()) }()
	}
	for range 3 {
		assert.NoError(t, <-results)
	}
	assert.ErrorIs(t, <-served, ErrServerClosed)
	assert.NoError(t, s.Shutdown(context.Background()), "after the first has finished too")
}

// MaxRequestsPerConn's zero is the default, not unlimited; negative is invalid.
func TestMaxRequestsPerConnDefault(t *testing.T) {
	c, err := ListenerConfig{}.resolve()
	require.NoError(t, err)
	assert.Equal(t, DefaultMaxRequestsPerConn, c.MaxRequestsPerConn)
	_, err = ListenerConfig{MaxRequestsPerConn: -1}.resolve()
	assert.ErrorIs(t, err, ErrInvalidConfig)
}
