package streamable

import (
	"errors"
	"net"
	"os"
	"sync/atomic"
	"time"
)

// A connection's read and write deadlines are enforced by the server's coarse tick, not by
// the runtime's timers. A request would otherwise change them four times (idle, head, body,
// write), each a clock read and a runtime timer update: together about a microsecond of
// every request's CPU. A connection records them in atomics instead; the tick, which visits
// every connection anyway, cuts a read or write that has overrun by setting the real
// deadline in the past. The phases and bounds the listener times itself start on the coarse
// clock, which lags by up to a tick, so they carry one tick of slack (coarseSlack): a
// deadline never fires early, and fires at most two ticks late, noise next to its value
// (seconds). A tick that runs late lags the clock by more; the tick then judges bounds that
// much later for a while (ticker.advance), so they still never fire early.
//
// The listener sets the phases itself, on the coarse clock, from fasthttp's connection
// states: HeadTimeout from the connection's start (Accept) or a keep-alive request's first
// byte (StateActive), IdleTimeout while waiting for the next request (StateIdle). fasthttp
// sets only the body's deadline (HeaderReceived), and the sse writer its events'. Every
// write is bounded by WriteTimeout. The per-read bound (ReadTimeout) applies to the reads
// of a request, not to the wait between requests.
//
// What it buys is measured by BenchmarkListenerDeadlines (deadline_bench_test.go): the same
// keep-alive tools/call through the whole listener, over in-memory and loopback TCP
// connections, with these deadlines (deadlines=tick) and with the plain form, fasthttp
// setting ReadTimeout, IdleTimeout and WriteTimeout on the connection per request
// (deadlines=plain, plainDeadlines), in one run; and by BenchmarkDeadlineSet, the per-request
// deadline updates alone.
//
// Reads and writes take no lock. The tick decides on what it loads and then cuts, so it can
// cut a read or write that began after its check; such a cut is spurious, and the
// connection retries the operation when its own deadlines have not passed. The cut flags
// change under conn.mu, so a cut and its clearing never interleave.
type deadlineCuts struct {
	// A cut is the real deadline set in the past by the tick (or the drain); the next read
	// or write that begins clears it.
	readCut, writeCut atomic.Bool
	stopped           atomic.Bool // the drain interrupted reads: every later read fails
}

// coarseSlack is added to the bounds timed from the coarse clock so they never end early.
const coarseSlack = int64(tickInterval)

// unixNano is t as a deadline: 0 for the zero time (none).
func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// plainDeadlines, set only by tests (BenchmarkListenerDeadlines) before New, serves with the
// plain form instead: fasthttp sets ReadTimeout, IdleTimeout and WriteTimeout on the
// connection itself, the listener times nothing, and deadlines go to the connection as set.
// (HeadTimeout is not applied then.)
var plainDeadlines bool

func (c *conn) SetReadDeadline(t time.Time) error {
	if c.l.plain {
		return c.Conn.SetReadDeadline(t)
	}
	c.st.readAt.Store(unixNano(t))
	return nil
}

func (c *conn) SetWriteDeadline(t time.Time) error {
	if c.l.plain {
		return c.Conn.SetWriteDeadline(t)
	}
	c.st.writeAt.Store(unixNano(t))
	return nil
}

func (c *conn) SetDeadline(t time.Time) error {
	if c.l.plain {
		return c.Conn.SetDeadline(t)
	}
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
	return l.readTimeout > 0 && !st.idle.Load() && now-since >= int64(l.readTimeout)+coarseSlack
}

// writeOverdue reports whether the write that began at since must end at now.
func (l *listener) writeOverdue(st *connState, now, since int64) bool {
	if at := st.writeAt.Load(); at != 0 && now >= at {
		return true
	}
	return l.writeTimeout > 0 && now-since >= int64(l.writeTimeout)+coarseSlack
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
		c.st.readAt.Store(c.l.now() + int64(c.l.headTimeout) + coarseSlack)
	}
}

func (c *conn) idleDeadline() int64 {
	if c.l.idleTimeout <= 0 {
		return 0
	}
	return c.l.now() + int64(c.l.idleTimeout) + coarseSlack
}

// overdue reports whether the read or write in progress must end at now: the tick's check of
// every connection, which reads only its connState.
func (l *listener) overdue(st *connState, now int64) bool {
	if since := st.readSince.Load(); since != 0 && l.readOverdue(st, now, since) {
		return true
	}
	since := st.writeSince.Load()
	return since != 0 && l.writeOverdue(st, now, since)
}

// beginRead marks a read as started at since (now when zero) and returns its start, or fails
// it when its deadline has passed.
func (c *conn) beginRead(since int64) (int64, error) {
	if c.dl.readCut.Load() {
		c.clearCut(&c.dl.readCut, c.Conn.SetReadDeadline)
	}
	now := c.l.now()
	if at := c.st.readAt.Load(); c.dl.stopped.Load() || at != 0 && now >= at || since != 0 && c.readDue(since) {
		return 0, c.timeout("read")
	}
	if since == 0 {
		since = now
	}
	c.st.readSince.Store(since)
	return since, nil
}

// readDue reports whether the read that began at since really had to end (a cut that was not
// is retried).
func (c *conn) readDue(since int64) bool {
	return c.dl.stopped.Load() || c.l.readOverdue(c.st, c.l.now(), since)
}

// beginWrite is beginRead for a write.
func (c *conn) beginWrite(since int64) (int64, error) {
	if c.dl.writeCut.Load() {
		c.clearCut(&c.dl.writeCut, c.Conn.SetWriteDeadline)
	}
	now := c.l.now()
	if at := c.st.writeAt.Load(); at != 0 && now >= at || since != 0 && c.writeDue(since) {
		return 0, c.timeout("write")
	}
	if since == 0 {
		since = now
	}
	c.st.writeSince.Store(since)
	return since, nil
}

// writeDue is readDue for the write that began at since.
func (c *conn) writeDue(since int64) bool { return c.l.writeOverdue(c.st, c.l.now(), since) }

// clearCut lifts a cut: the real deadline goes back to none.
func (c *conn) clearCut(cut *atomic.Bool, set func(time.Time) error) {
	c.mu.Lock()
	_ = set(time.Time{})
	cut.Store(false)
	c.mu.Unlock()
}

// isDeadline reports whether err is a deadline's.
func isDeadline(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }

// timeout is the error of an operation past its deadline, as net.Conn reports it.
func (c *conn) timeout(op string) error {
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: os.ErrDeadlineExceeded}
}

// cutOverdue cuts the read or write in progress that has overrun (the tick calls it).
func (c *conn) cutOverdue(now int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed.Load() {
		return
	}
	if since := c.st.readSince.Load(); since != 0 && !c.dl.readCut.Load() && c.l.readOverdue(c.st, now, since) {
		_ = c.Conn.SetReadDeadline(time.Unix(1, 0))
		c.dl.readCut.Store(true)
	}
	if since := c.st.writeSince.Load(); since != 0 && !c.dl.writeCut.Load() && c.l.writeOverdue(c.st, now, since) {
		_ = c.Conn.SetWriteDeadline(time.Unix(1, 0))
		c.dl.writeCut.Store(true)
	}
}

// stopReads fails the read in progress and every later one (the drain's step 2).
func (c *conn) stopReads() {
	c.mu.Lock()
	c.dl.stopped.Store(true)
	_ = c.Conn.SetReadDeadline(time.Unix(1, 0))
	c.dl.readCut.Store(true)
	c.mu.Unlock()
}
