package streamable

import (
	"net"
	"os"
	"time"
)

// A connection's read and write deadlines are enforced by the server's coarse tick, not by
// the runtime's timers. A request would otherwise change them four times (idle, head, body,
// write), each a clock read and a runtime timer update: together about a microsecond of
// every request's CPU. A connection records them in atomics instead; the tick, which visits
// every connection anyway, cuts a read or write that has overrun by setting the real
// deadline in the past. Deadlines thus fire up to one tick late (tickInterval), which is
// noise next to their values (seconds).
//
// The listener sets the phases itself, on the coarse clock, from fasthttp's connection
// states: HeadTimeout from the connection's start (Accept) or a keep-alive request's first
// byte (StateActive), IdleTimeout while waiting for the next request (StateIdle). fasthttp
// sets only the body's deadline (HeaderReceived), and the sse writer its events'. Every
// write is bounded by WriteTimeout. The per-read bound (ReadTimeout) applies to the reads
// of a request, not to the wait between requests.
//
// The atomics live in the connection's connState; deadlineCuts is guarded by conn.mu.
type deadlineCuts struct {
	// A cut is the real deadline set in the past by the tick (or the drain); the next read
	// or write that begins clears it.
	readCut, writeCut bool
	stopped           bool // the drain interrupted reads: every later read fails
}

// unixNano is t as a deadline: 0 for the zero time (none).
func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func (c *conn) SetReadDeadline(t time.Time) error {
	c.st.readAt.Store(unixNano(t))
	return nil
}

func (c *conn) SetWriteDeadline(t time.Time) error {
	c.st.writeAt.Store(unixNano(t))
	return nil
}

func (c *conn) SetDeadline(t time.Time) error {
	d := unixNano(t)
	c.st.readAt.Store(d)
	c.st.writeAt.Store(d)
	return nil
}

// readOverdue reports whether the read that began at since must end at now.
func (l *listener) readOverdue(st *connState, now, since int64) bool {
	if at := st.readAt.Load(); at != 0 && now >= at {
		return true
	}
	return l.readTimeout > 0 && !st.idle.Load() && now-since >= int64(l.readTimeout)
}

// writeOverdue reports whether the write in progress must end at now.
func (l *listener) writeOverdue(st *connState, now int64) bool {
	since := st.writeSince.Load()
	if since == 0 {
		return false
	}
	if at := st.writeAt.Load(); at != 0 && now >= at {
		return true
	}
	return l.writeTimeout > 0 && now-since >= int64(l.writeTimeout)
}

// idle marks the wait for the next request on a keep-alive connection (fasthttp's
// StateIdle): IdleTimeout bounds it, and the per-read bound does not apply.
func (c *conn) idle() {
	c.st.idle.Store(true)
	c.st.readAt.Store(c.idleDeadline())
}

// active marks a request's first byte (fasthttp's StateActive): after a wait between
// requests, the head's deadline starts; a new connection's runs from its start.
func (c *conn) active() {
	if c.st.idle.Swap(false) && c.l.headTimeout > 0 {
		c.st.readAt.Store(c.l.now() + int64(c.l.headTimeout))
	}
}

func (c *conn) idleDeadline() int64 {
	if c.l.idleTimeout <= 0 {
		return 0
	}
	return c.l.now() + int64(c.l.idleTimeout)
}

// overdue reports whether the read or write in progress must end at now: the tick's check of
// every connection, which reads only its connState.
func (l *listener) overdue(st *connState, now int64) bool {
	if since := st.readSince.Load(); since != 0 && l.readOverdue(st, now, since) {
		return true
	}
	return l.writeOverdue(st, now)
}

// beginRead marks a read as started, or fails it when its deadline has passed. It takes the
// lock so that the tick never cuts a read on the strength of an earlier read's bounds.
func (c *conn) beginRead() error {
	now := c.l.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dl.readCut {
		_ = c.Conn.SetReadDeadline(time.Time{})
		c.dl.readCut = false
	}
	if at := c.st.readAt.Load(); c.dl.stopped || at != 0 && now >= at {
		return c.timeout("read")
	}
	c.st.readSince.Store(now)
	return nil
}

// beginWrite is beginRead for a write.
func (c *conn) beginWrite() error {
	now := c.l.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dl.writeCut {
		_ = c.Conn.SetWriteDeadline(time.Time{})
		c.dl.writeCut = false
	}
	if at := c.st.writeAt.Load(); at != 0 && now >= at {
		return c.timeout("write")
	}
	c.st.writeSince.Store(now)
	return nil
}

// timeout is the error of an operation past its deadline, as net.Conn reports it.
func (c *conn) timeout(op string) error {
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: os.ErrDeadlineExceeded}
}

// cutOverdue cuts the read or write in progress that has overrun (the tick calls it). The
// checks are repeated under the lock, where a new read or write cannot begin.
func (c *conn) cutOverdue(now int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed.Load() {
		return
	}
	if since := c.st.readSince.Load(); since != 0 && !c.dl.readCut && c.l.readOverdue(c.st, now, since) {
		_ = c.Conn.SetReadDeadline(time.Unix(1, 0))
		c.dl.readCut = true
	}
	if !c.dl.writeCut && c.l.writeOverdue(c.st, now) {
		_ = c.Conn.SetWriteDeadline(time.Unix(1, 0))
		c.dl.writeCut = true
	}
}

// stopReads fails the read in progress and every later one (the drain's step 2).
func (c *conn) stopReads() {
	c.mu.Lock()
	c.dl.stopped = true
	_ = c.Conn.SetReadDeadline(time.Unix(1, 0))
	c.dl.readCut = true
	c.mu.Unlock()
}
