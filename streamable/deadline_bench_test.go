package streamable

import (
	"bufio"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp/fasthttputil"
)

// serveDeadlines serves the test core with the listener's deadlines (the tick's) or, when
// plain is set, with fasthttp setting them per request (see plainDeadlines), over an
// in-memory listener or loopback TCP; it returns the dialer of the listener.
func serveDeadlines(tb testing.TB, network string, plain bool) func() (net.Conn, error) {
	tb.Helper()
	plainDeadlines = plain
	defer func() { plainDeadlines = false }()
	if network == "inmemory" {
		ln := fasthttputil.NewInmemoryListener()
		serveBench(tb, ln)
		return ln.Dial
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	serveBench(tb, ln)
	addr := ln.Addr().String()
	return func() (net.Conn, error) { return net.Dial("tcp", addr) }
}

// BenchmarkListenerDeadlines measures what the listener's own deadlines buy (see
// deadlineCuts): a keep-alive tools/call through the whole listener with them
// (deadlines=tick) and with fasthttp's ReadTimeout, IdleTimeout and WriteTimeout set on the
// connection per request (deadlines=plain), over in-memory connections, whose deadlines
// cost next to nothing, and over loopback TCP, where each is a runtime timer update.
func BenchmarkListenerDeadlines(b *testing.B) {
	req := echoRequest()
	for _, network := range []string{"inmemory", "tcp"} {
		for _, mode := range []string{"tick", "plain"} {
			dial := serveDeadlines(b, network, mode == "plain")
			b.Run("conn="+network+"/deadlines="+mode, func(b *testing.B) { runClients(b, dial, req) })
		}
	}
}

// TestListenerDeadlinesModes checks the bodies of BenchmarkListenerDeadlines: both modes
// serve keep-alive calls on both kinds of connection.
func TestListenerDeadlinesModes(t *testing.T) {
	req := echoRequest()
	for _, network := range []string{"inmemory", "tcp"} {
		for _, plain := range []bool{false, true} {
			c, err := serveDeadlines(t, network, plain)()
			if err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReader(c)
			for range 3 {
				if _, err := c.Write(req); err != nil {
					t.Fatal(err)
				}
				if err := readOne(br); err != nil {
					t.Fatalf("%s plain=%v: %v", network, plain, err)
				}
			}
			_ = c.Close()
		}
	}
}

// BenchmarkDeadlineSet measures the deadline work of one keep-alive request alone, on a
// loopback TCP connection: the plain form's three deadline changes (idle wait, request
// read, response write; each a clock read and a runtime timer update) against the
// listener's (the connection states' stores and one read's and one write's bookkeeping on
// the coarse clock).
func BenchmarkDeadlineSet(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()
	server := <-accepted
	defer server.Close()

	b.Run("impl=plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = server.SetReadDeadline(time.Now().Add(DefaultIdleTimeout))
			_ = server.SetReadDeadline(time.Now().Add(DefaultReadTimeout))
			_ = server.SetWriteDeadline(time.Now().Add(DefaultWriteTimeout))
		}
		_ = server.SetDeadline(time.Time{})
	})
	b.Run("impl=tick", func(b *testing.B) {
		var clock atomic.Int64
		clock.Store(time.Now().UnixNano())
		l := &listener{clock: &clock, readTimeout: DefaultReadTimeout, headTimeout: DefaultHeadTimeout,
			idleTimeout: DefaultIdleTimeout, writeTimeout: DefaultWriteTimeout}
		c := &conn{Conn: server, l: l}
		l.conns.add(c)
		b.ReportAllocs()
		for b.Loop() {
			c.idle()
			c.active()
			if _, err := c.beginRead(0); err != nil {
				b.Fatal(err)
			}
			c.st.readSince.Store(0)
			if _, err := c.beginWrite(0); err != nil {
				b.Fatal(err)
			}
			c.st.writeSince.Store(0)
		}
	})
}
