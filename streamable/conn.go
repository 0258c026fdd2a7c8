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
	// clock is the server's coarse time in Unix nanoseconds (0 before the first tick).
	clock *atomic.Int64

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

// conn is an accepted connection. It keeps its deadlines for the server's tick to enforce
// (see deadlines), and can watch for the peer going away while a request runs without
// taking bytes from the next request: whatever the watch reads is returned first by the
// next Read.
type conn struct {
	net.Conn
	l           *listener
	id          uint64
	readTimeout time.Duration // per read of a request

	mu       sync.Mutex // guards stash and the deadline cuts
	stash    []byte
	hasStash atomic.Bool
	dl       deadlines

	closed  atomic.Bool
	busy    atomic.Bool // a handler is serving a request read in full
	headers headerSet   // the request's indexed headers, reused

	// The watch of a running request.
	watching  bool
	gone      chan struct{}
	watchDone chan struct{}

	// An inline request (run on this connection's goroutine): when it started, in the
	// server's coarse time (0: none), and the executor key the watch cancels if the peer
	// goes away. Guarded by inlineMu, shared with the server's tick.
	inlineMu    sync.Mutex
	inlineStart int64
	inlineKey   pool.Key
}

func (c *conn) Read(p []byte) (int, error) {
	if c.hasStash.Load() {
		c.mu.Lock()
		n := copy(p, c.stash)
		c.stash = c.stash[n:]
		c.hasStash.Store(len(c.stash) > 0)
		c.mu.Unlock()
		return n, nil
	}
	if err := c.beginRead(); err != nil {
		return 0, err
	}
	n, err := c.Conn.Read(p)
	c.dl.readSince.Store(0)
	return n, err
}

func (c *conn) Write(p []byte) (int, error) {
	if err := c.beginWrite(); err != nil {
		return 0, err
	}
	n, err := c.Conn.Write(p)
	c.dl.writeSince.Store(0)
	return n, err
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
func (c *conn) watch(onGone func()) <-chan struct{} {
	if c.gone == nil {
		c.gone, c.watchDone = make(chan struct{}), make(chan struct{}, 1)
	}
	c.watching = true
	c.clearReadCut()
	go func() {
		var buf [512]byte
		n, err := c.Conn.Read(buf[:])
		if n > 0 {
			c.mu.Lock()
			c.stash = append(c.stash, buf[:n]...)
			c.hasStash.Store(true)
			c.mu.Unlock()
		} else if err != nil && !isTimeout(err) {
			close(c.gone)
			if onGone != nil {
				onGone()
			}
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
	c.clearReadCut()
	return false
}

// clearReadCut lifts a real read deadline: the watch reads with none, and the recorded
// deadlines apply again after it.
func (c *conn) clearReadCut() {
	c.mu.Lock()
	_ = c.Conn.SetReadDeadline(time.Time{})
	c.dl.readCut = false
	c.mu.Unlock()
}

// keyOf is the executor key of the request a connection is serving: one at a time.
func keyOf(c *conn) pool.Key { return pool.Key{Owner: c.id} }

// interruptReads makes every connection that is reading (a head or body still arriving, or
// waiting idle for the next request) fail its read now; connections whose request was read
// in full are left to finish.
func (l *listener) interruptReads() {
	for _, c := range l.all() {
		if !c.busy.Load() {
			c.stopReads()
		}
	}
}

// now returns the coarse time in Unix nanoseconds.
func (l *listener) now() int64 {
	if l.clock != nil {
		if t := l.clock.Load(); t != 0 {
			return t
		}
	}
	return time.Now().UnixNano()
}

// beginInline marks the start of an inline request.
func (c *conn) beginInline(key pool.Key) {
	c.inlineMu.Lock()
	c.inlineStart, c.inlineKey = c.l.now(), key
	c.inlineMu.Unlock()
}

// endInline marks its end, stopping a watch the tick started; it reports whether the peer
// went away meanwhile.
func (c *conn) endInline() (gone bool) {
	c.inlineMu.Lock()
	defer c.inlineMu.Unlock()
	c.inlineStart = 0
	return c.unwatch()
}

// watchInline starts watching the connection of an inline request running for longer than
// after (the tick calls it): the request's job is cancelled if the peer goes away.
func (c *conn) watchInline(now, after int64, exec interface{ Cancel(pool.Key, error) bool }) {
	c.inlineMu.Lock()
	defer c.inlineMu.Unlock()
	if c.inlineStart == 0 || c.watching || now-c.inlineStart < after {
		return
	}
	key := c.inlineKey
	c.watch(func() { exec.Cancel(key, errDisconnected) })
}

// onTick enforces every connection's deadlines and, with exec, lets every connection running
// an inline request start its watch when due.
func (l *listener) onTick(now, after int64, exec interface{ Cancel(pool.Key, error) bool }) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.conns {
		c.enforceDeadlines(now)
		if exec != nil {
			c.watchInline(now, after, exec)
		}
	}
}

// isTimeout reports whether a read ended at its deadline (the watch being stopped), not
// because the peer went away.
func isTimeout(err error) bool {
	var te interface{ Timeout() bool }
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &te) && te.Timeout()
}
