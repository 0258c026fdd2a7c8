//go:build linux

package loadtest

import (
	"context"
	"errors"
	"net"
	"strconv"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
)

// The epoll engine drives a closed loop's connections from one goroutine over raw
// non-blocking sockets and one epoll instance, as wrk does: a request costs one write and
// usually one read system call, with no goroutine parked, woken or polled for it. The
// goroutine-per-connection loop spends about half as much again per request, so on one CPU
// it cannot saturate a bare fasthttp server on another; this engine can, which is what makes
// the ceiling a ceiling. It serves plain-HTTP targets whose replies carry a Content-Length
// (probed first); every reply is checked as the other loop checks it.

// epollConn is one connection of the engine.
type epollConn struct {
	fd    int
	slot  int32 // its index in the engine's conns, the epoll event's data
	w     *worker
	next  int64  // the id of the next request
	id    []byte // the id literal of the request in flight
	sent  time.Time
	busy  bool
	req   []byte // the request in flight's bytes
	out   []byte // the part of req not yet written
	buf   []byte // the response's bytes read so far
	known known
	retry time.Time // when a connection that could not be opened is dialled again
}

// epollEngine is one run of the engine.
type epollEngine struct {
	l     *load
	epfd  int
	conns []*epollConn
	heads map[int][]byte // the request head for each body length
	body  []byte
}

// epollAvailable reports whether the engine can drive l: a closed loop over plain HTTP to a
// target whose reply to one echo call is framed by Content-Length. The probe's reply, when
// it passes the check, counts as answered on w.
func (l *load) epollAvailable(ctx context.Context, w *worker) bool {
	if !l.epoll || l.rate > 0 || !l.split.IsZero() || l.ep.tls != nil {
		return false
	}
	c, err := dialConn(ctx, l.ep, l.timeout)
	if err != nil {
		return false
	}
	defer c.close()
	kind, _ := c.call(time.Now(), int64(l.conns))
	if kind == "" {
		w.answered++
	}
	return kind == "" && c.resp.Header.ContentLength() >= 0 && !c.resp.ConnectionClose()
}

// runEpoll drives the workers' connections until end (or ctx), then waits up to the timeout
// for the responses in flight. It reports false, having sent nothing, when it cannot start.
func (l *load) runEpoll(ctx context.Context, workers []*worker, measureFrom, end time.Time) bool {
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return false
	}
	e := &epollEngine{l: l, epfd: epfd, heads: map[int][]byte{}}
	defer e.close()
	for i, w := range workers {
		// ids: connection i sends i, i+n, i+2n... (the probe took n).
		e.conns = append(e.conns, &epollConn{fd: -1, slot: int32(i), w: w, next: int64(i + len(workers) + 1)})
	}
	for _, c := range e.conns {
		e.open(ctx, c, measureFrom)
	}
	events := make([]syscall.EpollEvent, len(e.conns))
	for {
		now := time.Now()
		if ctx.Err() != nil || !now.Before(end) && !e.inFlight() || now.After(end.Add(l.timeout)) {
			return true
		}
		for _, c := range e.conns {
			switch {
			case c.fd < 0 && now.Before(end) && !now.Before(c.retry):
				e.open(ctx, c, measureFrom)
			case c.busy && now.Sub(c.sent) > l.timeout:
				e.fail(c, KindTimeout, measureFrom, end)
			}
		}
		n, err := syscall.EpollWait(epfd, events, 50)
		if err != nil && !errors.Is(err, syscall.EINTR) {
			return true
		}
		for _, ev := range events[:max(n, 0)] {
			if c := e.conns[ev.Fd]; c.fd >= 0 {
				e.ready(c, ev.Events, measureFrom, end)
			}
		}
	}
}

// open dials c and sends its first request; a connection that cannot be opened is counted
// and dialled again 10 ms later, so a dead target does not spin.
func (e *epollEngine) open(ctx context.Context, c *epollConn, measureFrom time.Time) {
	fd, err := e.dial(ctx)
	if err == nil {
		ev := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLRDHUP, Fd: c.slot}
		if err = syscall.EpollCtl(e.epfd, syscall.EPOLL_CTL_ADD, fd, &ev); err != nil {
			_ = syscall.Close(fd)
		}
	}
	if err != nil {
		c.retry = time.Now().Add(10 * time.Millisecond)
		if ctx.Err() == nil && !time.Now().Before(measureFrom) {
			kind := KindDial
			if k := kindOf(err, false); k == KindRefused || k == KindTimeout {
				kind = k
			}
			c.w.errors.add(kind, 1)
			c.w.errs.Add(1)
		}
		return
	}
	c.fd, c.busy, c.buf = fd, false, c.buf[:0]
	e.send(c, time.Now(), measureFrom, time.Time{})
}

// dial opens a connection to the target with Go's dialer (which sets TCP_NODELAY and copes
// with signals and timeouts) and returns a duplicate of its descriptor, non-blocking like
// the original; the original is closed, which takes it out of Go's poller.
func (e *epollEngine) dial(ctx context.Context) (int, error) {
	nc, err := (&net.Dialer{Timeout: dialTimeout}).DialContext(ctx, "tcp", e.l.ep.addr)
	if err != nil {
		return -1, err
	}
	defer nc.Close()
	rc, err := nc.(*net.TCPConn).SyscallConn()
	if err != nil {
		return -1, err
	}
	fd := -1
	cerr := rc.Control(func(orig uintptr) {
		r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, orig, syscall.F_DUPFD_CLOEXEC, 0)
		if errno != 0 {
			err = errno
			return
		}
		fd = int(r)
	})
	if cerr != nil {
		err = cerr
	}
	if err != nil {
		if fd >= 0 {
			_ = syscall.Close(fd)
		}
		return -1, err
	}
	return fd, nil
}

// send writes c's next request, unless the window has ended (end zero: it has not).
func (e *epollEngine) send(c *epollConn, now, measureFrom, end time.Time) {
	if !end.IsZero() && now.After(end) {
		return
	}
	id := c.next
	c.next += int64(len(e.conns)) + 1
	e.body = e.l.ep.appendCall(e.body[:0], id)
	c.req = append(append(c.req[:0], e.head(len(e.body))...), e.body...)
	c.out = c.req
	c.id = strconv.AppendInt(c.id[:0], id, 10)
	c.sent, c.busy = now, true
	for len(c.out) > 0 {
		n, err := syscall.Write(c.fd, c.out)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if errors.Is(err, syscall.EAGAIN) {
			// A full socket buffer holds the rest of a request of a few hundred bytes only
			// when the server stopped reading: the request times out.
			return
		}
		if err != nil {
			kind := kindOf(err, false)
			if kind == KindHTTP {
				kind = KindWrite
			}
			e.fail(c, kind, measureFrom, end)
			return
		}
		c.out = c.out[n:]
	}
}

// head returns the request head for a body of n bytes, the bytes the other loop's fasthttp
// request writes.
func (e *epollEngine) head(n int) []byte {
	if h, ok := e.heads[n]; ok {
		return h
	}
	var req fasthttp.Request
	e.l.ep.setHeaders(&req, "tools/call", e.l.ep.t.Tool)
	req.Header.SetContentLength(n)
	h := append([]byte(nil), req.Header.Header()...)
	e.heads[n] = h
	return h
}

// ready reads what arrived on c and, once its response is whole, checks it, records it and
// sends the next request.
func (e *epollEngine) ready(c *epollConn, events uint32, measureFrom, end time.Time) {
	for {
		if cap(c.buf)-len(c.buf) < 4<<10 {
			c.buf = append(c.buf, make([]byte, 8<<10)...)[:len(c.buf)]
		}
		room := cap(c.buf) - len(c.buf)
		n, err := syscall.Read(c.fd, c.buf[len(c.buf):cap(c.buf)])
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if errors.Is(err, syscall.EAGAIN) {
			break
		}
		if err != nil || n == 0 {
			if !c.busy && len(c.buf) == 0 {
				e.drop(c) // closed between requests: reopened by the loop
				return
			}
			kind := KindClosed
			if len(c.buf) > 0 {
				kind = KindHTTP
			}
			e.fail(c, kind, measureFrom, end)
			return
		}
		c.buf = c.buf[:len(c.buf)+n]
		if n < room {
			break // the socket had no more
		}
	}
	f, ok, kind := frameResponse(c.buf)
	switch {
	case kind != "":
		e.fail(c, kind, measureFrom, end)
		return
	case !ok:
		if events&(syscall.EPOLLRDHUP|syscall.EPOLLHUP) != 0 {
			e.fail(c, KindClosed, measureFrom, end)
		}
		return
	}
	got := time.Now()
	if !c.busy || f.size != len(c.buf) {
		e.fail(c, KindUnexpected, measureFrom, end)
		return
	}
	kind = ""
	if f.status != fasthttp.StatusOK {
		kind = KindStatusPrefix + strconv.Itoa(f.status)
	} else if body, k := replyOf(f.ctype, f.body); k != "" {
		kind = k
	} else {
		kind = c.known.check(body, c.id, e.l.ep.text)
	}
	c.busy, c.buf = false, c.buf[:0]
	e.record(c, kind, got, measureFrom, end)
	if f.closes {
		e.drop(c)
		return
	}
	e.send(c, got, measureFrom, end)
}

// record counts c's finished request as the other loop does: measured when sent in the
// window and answered within the timeout after it.
func (e *epollEngine) record(c *epollConn, kind string, got, measureFrom, end time.Time) {
	if kind == "" {
		c.w.answered++
	}
	if !c.sent.Before(measureFrom) && !got.After(end.Add(e.l.timeout)) {
		c.w.result(kind, got.Sub(c.sent), got.Sub(c.sent), -1)
	}
}

// fail counts c's request in flight as failed with kind and closes c (reopened by the loop).
func (e *epollEngine) fail(c *epollConn, kind string, measureFrom, end time.Time) {
	if c.busy {
		c.busy = false
		e.record(c, kind, time.Now(), measureFrom, end)
	}
	e.drop(c)
}

// drop closes c's connection.
func (e *epollEngine) drop(c *epollConn) {
	if c.fd < 0 {
		return
	}
	_ = syscall.EpollCtl(e.epfd, syscall.EPOLL_CTL_DEL, c.fd, nil)
	_ = syscall.Close(c.fd)
	c.fd, c.busy, c.buf = -1, false, c.buf[:0]
}

func (e *epollEngine) inFlight() bool {
	for _, c := range e.conns {
		if c.busy {
			return true
		}
	}
	return false
}

func (e *epollEngine) close() {
	for _, c := range e.conns {
		e.drop(c)
	}
	_ = syscall.Close(e.epfd)
}
