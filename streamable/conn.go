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
	// The connection deadlines the listener applies itself (see deadlines): each read of a
	// request, the head (from the connection's start or a keep-alive request's first byte),
	// the wait between requests, and each write.
	readTimeout, headTimeout, idleTimeout, writeTimeout time.Duration
	plain                                               bool // fasthttp sets the deadlines instead (plainDeadlines)
	// clock is the server's coarse time in Unix nanoseconds (0 before the first tick).
	clock *atomic.Int64
	// stashMax bounds what a watch keeps of the bytes a client sends while its request runs
	// (see conn.watch); 0 means DefaultMaxHeaderBytes.
	stashMax int

	conns connTable // the open connections, for the tick and the end of a drain
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
		wc := &conn{Conn: c, l: l, id: l.ids.Add(1)}
		l.conns.add(wc)
		if l.headTimeout > 0 {
			wc.st.readAt.Store(l.now() + int64(l.headTimeout) + coarseSlack)
		}
		return wc, nil
	}
}

// conn is an accepted connection. It keeps its deadlines for the server's tick to enforce
// (see deadlines), and can watch for the peer going away while a request runs without
// taking bytes from the next request: whatever the watch reads is returned first by the
// next Read.
type conn struct {
	net.Conn
	l    *listener
	id   uint64
	st   *connState // what the tick reads, in the listener's table
	slot int32      // st's slot in the table

	mu       sync.Mutex // guards stash and the deadline cuts
	stash    []byte
	hasStash atomic.Bool
	dl       deadlineCuts

	closed  atomic.Bool
	busy    atomic.Bool // a handler is serving a request read in full
	headers headerSet   // the request's indexed headers, reused
	req     reqState    // what the request's head told (see reqState)

	// The watch of a running request.
	watching  bool
	gone      chan struct{}
	watchDone chan struct{}

	// inlineMu orders the start of a watch of an inline request (by the tick) with the
	// request's end; the start time is st.inlineStart.
	inlineMu sync.Mutex
}

func (c *conn) Read(p []byte) (int, error) {
	if c.hasStash.Load() {
		c.mu.Lock()
		n := copy(p, c.stash)
		c.stash = c.stash[n:]
		if len(c.stash) == 0 {
			c.stash = nil // a long-lived connection does not keep the buffer
		}
		c.hasStash.Store(len(c.stash) > 0)
		c.mu.Unlock()
		return n, nil
	}
	var since int64 // the read's start, kept across retries
	for {
		var err error
		if since, err = c.beginRead(since); err != nil {
			return 0, err
		}
		n, err := c.Conn.Read(p)
		c.st.readSince.Store(0)
		if n == 0 && err != nil && isDeadline(err) && !c.readDue(since) {
			continue // a spurious cut (see deadlineCuts)
		}
		return n, err
	}
}

func (c *conn) Write(p []byte) (int, error) {
	written := 0
	var since int64 // the write's start, kept across retries
	for {
		var err error
		if since, err = c.beginWrite(since); err != nil {
			return written, err
		}
		n, err := c.Conn.Write(p[written:])
		c.st.writeSince.Store(0)
		written += n
		if err != nil && isDeadline(err) && !c.writeDue(since) && written < len(p) {
			continue // a spurious cut (see deadlineCuts)
		}
		return written, err
	}
}

func (c *conn) Close() error {
	if c.closed.CompareAndSwap(false, true) {
		c.l.open.Add(-1)
		c.l.stats.openConns.Add(-1)
		c.l.conns.remove(c.slot)
	}
	return c.Conn.Close()
}

// watch starts reading the connection in the background; the returned channel is closed if
// the peer closes it (or it fails) before unwatch. Bytes that arrive meanwhile (a pipelined
// request, or anything else) are kept for the next Read, and the watch goes on, up to the
// listener's stashMax bytes: there it stops reading, TCP flow control holds back the rest,
// and a disconnect is noticed only when the response is written.
//
// An end of stream counts as gone. A read cannot tell a client that closed from one that
// only shut down its sending side (shutdown(SHUT_WR)) and still waits for the response;
// like net/http's background read and nginx, the listener takes both for a client that went
// away, so the documented cancellation holds for the common one.
func (c *conn) watch(onGone func()) <-chan struct{} {
	if c.gone == nil {
		c.gone, c.watchDone = make(chan struct{}), make(chan struct{}, 1)
	}
	c.watching = true
	c.clearReadCut()
	go c.watchReads(c.gone, onGone)
	return c.gone
}

// watchReads is the watch's reader.
func (c *conn) watchReads(gone chan struct{}, onGone func()) {
	defer func() { c.watchDone <- struct{}{} }()
	limit := c.l.stashMax
	if limit <= 0 {
		limit = DefaultMaxHeaderBytes
	}
	var buf [512]byte
	for {
		c.mu.Lock()
		room := limit - len(c.stash)
		c.mu.Unlock()
		if room <= 0 {
			return // full: stop watching (see watch)
		}
		n, err := c.Conn.Read(buf[:min(room, len(buf))])
		if n > 0 {
			c.mu.Lock()
			c.stash = append(c.stash, buf[:n]...)
			c.hasStash.Store(true)
			c.mu.Unlock()
		}
		if err != nil {
			if !isTimeout(err) {
				close(gone)
				if onGone != nil {
					onGone()
				}
			}
			return
		}
	}
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
func (c *conn) clearReadCut() { c.clearCut(&c.dl.readCut, c.Conn.SetReadDeadline) }

// keyOf is the executor key of the request a connection is serving: one at a time.
func keyOf(c *conn) pool.Key { return pool.Key{Owner: c.id} }

// interruptReads makes every connection that is reading (a head or body still arriving, or
// waiting idle for the next request) fail its read now; connections whose request was read
// in full are left to finish.
func (l *listener) interruptReads() {
	for _, c := range l.conns.all() {
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
func (c *conn) beginInline() { c.st.inlineStart.Store(c.l.now()) }

// endInline marks its end, stopping a watch the tick started; it reports whether the peer
// went away meanwhile.
func (c *conn) endInline() (gone bool) {
	c.inlineMu.Lock()
	defer c.inlineMu.Unlock()
	c.st.inlineStart.Store(0)
	return c.unwatch()
}

// watchInline starts watching the connection of an inline request running for longer than
// after (the tick calls it): the request's job is cancelled if the peer goes away.
func (c *conn) watchInline(now, after int64, exec interface{ Cancel(pool.Key, error) bool }) {
	if start := c.st.inlineStart.Load(); start == 0 || now-start < after {
		return
	}
	c.inlineMu.Lock()
	defer c.inlineMu.Unlock()
	if start := c.st.inlineStart.Load(); start == 0 || c.watching || now-start < after {
		return
	}
	key := keyOf(c)
	c.watch(func() { exec.Cancel(key, errDisconnected) })
}

// onTick enforces every connection's deadlines and, with exec, lets every connection running
// an inline request start its watch when due.
func (l *listener) onTick(now, after int64, exec interface{ Cancel(pool.Key, error) bool }) {
	l.conns.each(func(st *connState, c *conn) {
		if l.overdue(st, now) {
			c.cutOverdue(now)
		}
		if exec != nil && st.inlineStart.Load() != 0 {
			c.watchInline(now, after, exec)
		}
	})
}

// isTimeout reports whether a read ended at its deadline (the watch being stopped), not
// because the peer went away.
func isTimeout(err error) bool {
	var te interface{ Timeout() bool }
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &te) && te.Timeout()
}
