package streamable

import (
	"errors"

	"github.com/fastmcp-go/fastmcp/pool"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// listener caps open connections: one accepted at the cap is closed without being read.
type listener struct {
	net.Listener
	max   int64
	open  atomic.Int64
	stats *counters
	ids   atomic.Uint64
	// readTimeout bounds each read of a connection.
	readTimeout time.Duration

	mu    sync.Mutex
	conns map[*conn]struct{} // for the end of a drain
}

func (l *listener) track(c *conn) {
	l.mu.Lock()
	if l.conns == nil {
		l.conns = map[*conn]struct{}{}
	}
	l.conns[c] = struct{}{}
	l.mu.Unlock()
}

func (l *listener) untrack(c *conn) {
	l.mu.Lock()
	delete(l.conns, c)
	l.mu.Unlock()
}

// all returns the connections open now.
func (l *listener) all() []*conn {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]*conn, 0, len(l.conns))
	for c := range l.conns {
		out = append(out, c)
	}
	return out
}

func (l *listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) > l.max {
			l.open.Add(-1)
			l.stats.closedAtCap.Add(1)
			_ = c.Close()
			continue
		}
		l.stats.openConns.Add(1)
		wc := &conn{Conn: c, l: l, id: l.ids.Add(1), readTimeout: l.readTimeout}
		l.track(wc)
		return wc, nil
	}
}

// conn is an accepted connection. It applies the per-read timeout under whatever deadline
// fasthttp set for the phase (head, body, idle), and can watch for the peer going away while
// a request runs without taking bytes from the next request: whatever the watch reads is
// returned first by the next Read.
type conn struct {
	net.Conn
	l           *listener
	id          uint64
	readTimeout time.Duration // per read, under the phase deadline

	mu            sync.Mutex
	phaseDeadline time.Time
	stash         []byte

	closed atomic.Bool
	busy   atomic.Bool // a handler is serving a request read in full

	// The watch of a running request.
	watching  bool
	gone      chan struct{}
	watchDone chan struct{}
}

func (c *conn) Read(p []byte) (int, error) {
	c.mu.Lock()
	if len(c.stash) > 0 {
		n := copy(p, c.stash)
		c.stash = c.stash[n:]
		c.mu.Unlock()
		return n, nil
	}
	d := c.phaseDeadline
	c.mu.Unlock()
	if c.readTimeout > 0 {
		per := time.Now().Add(c.readTimeout)
		if d.IsZero() || per.Before(d) {
			d = per
		}
		_ = c.Conn.SetReadDeadline(d)
	}
	return c.Conn.Read(p)
}

func (c *conn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	c.phaseDeadline = t
	c.mu.Unlock()
	return c.Conn.SetReadDeadline(t)
}

func (c *conn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	c.phaseDeadline = t
	c.mu.Unlock()
	return c.Conn.SetDeadline(t)
}

func (c *conn) Close() error {
	if c.closed.CompareAndSwap(false, true) {
		c.l.open.Add(-1)
		c.l.stats.openConns.Add(-1)
		c.l.untrack(c)
	}
	return c.Conn.Close()
}

// watch starts reading the connection in the background; the returned channel is closed if
// the peer closes it (or it fails) before unwatch. Bytes that arrive meanwhile (a pipelined
// request) are kept for the next Read, and end the watch.
func (c *conn) watch() <-chan struct{} {
	if c.gone == nil {
		c.gone, c.watchDone = make(chan struct{}), make(chan struct{}, 1)
	}
	c.watching = true
	_ = c.Conn.SetReadDeadline(time.Time{})
	go func() {
		var buf [512]byte
		n, err := c.Conn.Read(buf[:])
		if n > 0 {
			c.mu.Lock()
			c.stash = append(c.stash, buf[:n]...)
			c.mu.Unlock()
		} else if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			close(c.gone)
		}
		c.watchDone <- struct{}{}
	}()
	return c.gone
}

// unwatch stops a watch and waits for its reader, so fasthttp owns the connection again.
// It reports whether the peer went away.
func (c *conn) unwatch() (gone bool) {
	if !c.watching {
		return false
	}
	c.watching = false
	_ = c.Conn.SetReadDeadline(time.Unix(1, 0)) // wake the reader
	<-c.watchDone
	select {
	case <-c.gone:
		c.gone = nil // a closed channel cannot be reused
		return true
	default:
	}
	c.mu.Lock()
	d := c.phaseDeadline
	c.mu.Unlock()
	_ = c.Conn.SetReadDeadline(d)
	return false
}

// keyOf is the executor key of the request a connection is serving: one at a time.
func keyOf(c *conn) pool.Key { return pool.Key{Owner: c.id} }

// interruptReads makes every connection that is reading (a head or body still arriving, or
// waiting idle for the next request) fail its read now; connections whose request was read
// in full are left to finish.
func (l *listener) interruptReads() {
	for _, c := range l.all() {
		if !c.busy.Load() {
			_ = c.Conn.SetReadDeadline(time.Now())
		}
	}
}
