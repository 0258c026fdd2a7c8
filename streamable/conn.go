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
	hasStash      atomic.Bool

	// The read deadline in force, in Unix nanoseconds, and whether it is the phase's (sooner
	// than the per-read bound). Used by the connection's own goroutine only.
	applied        int64
	appliedIsPhase bool

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
	if c.readTimeout > 0 && !c.appliedIsPhase {
		// Re-arm the per-read bound only when less than 7/8 of it is left: a read always gets
		// between 7/8 of ReadTimeout and all of it, without a clock read and a deadline
		// change per read. The time is the server's coarse clock.
		if now := c.l.now(); c.applied-now < int64(c.readTimeout)-int64(c.readTimeout)/8 {
			c.applyRead(now)
		}
	}
	return c.Conn.Read(p)
}

// applyRead sets the read deadline to the sooner of the per-read bound and the phase
// deadline.
func (c *conn) applyRead(now int64) {
	d := now + int64(c.readTimeout)
	c.mu.Lock()
	phase := c.phaseDeadline
	c.mu.Unlock()
	c.appliedIsPhase = !phase.IsZero() && phase.UnixNano() <= d
	if c.appliedIsPhase {
		d = phase.UnixNano()
	}
	c.applied = d
	_ = c.Conn.SetReadDeadline(time.Unix(0, d))
}

func (c *conn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	c.phaseDeadline = t
	c.mu.Unlock()
	if c.readTimeout > 0 {
		c.applyRead(c.l.now())
		return nil
	}
	return c.Conn.SetReadDeadline(t)
}

func (c *conn) SetDeadline(t time.Time) error {
	if err := c.Conn.SetWriteDeadline(t); err != nil {
		return err
	}
	return c.SetReadDeadline(t)
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
	_ = c.Conn.SetReadDeadline(time.Time{})
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
	c.applied, c.appliedIsPhase = 0, false // the next read re-arms its bound
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

// scanInline lets every connection running an inline request start its watch when due.
func (l *listener) scanInline(now, after int64, exec interface{ Cancel(pool.Key, error) bool }) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.conns {
		c.watchInline(now, after, exec)
	}
}

// isTimeout reports whether a read ended at its deadline (the watch being stopped), not
// because the peer went away.
func isTimeout(err error) bool {
	var te interface{ Timeout() bool }
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &te) && te.Timeout()
}
