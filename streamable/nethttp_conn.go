package streamable

import (
	"cmp"
	"context"
	"log/slog"
	"net"
	"net/http"
	"syscall"
	"time"
)

// connKey is the context key of the connection a net/http request arrived on.
type connKey struct{}

// ConnContext, as an [http.Server]'s ConnContext, lets a [Handler] see the connection a
// request arrived on, so that it can cancel a request whose client went away even after
// the client sent further bytes (see "Cancellation" in the package doc). [NewHTTPServer]
// sets it; a server with its own ConnContext calls it from there.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// NewHTTPServer returns an http.Server that serves h with the connection-level settings of
// lc that net/http can apply: Addr, HeadTimeout as ReadHeaderTimeout, IdleTimeout (their
// defaults when zero), MaxHeaderBytes from h's Config (the handler refuses heads past it with
// its own 431; the server stops reading a head 4 KiB further), and [ConnContext]; its log
// goes to h's Logger. lc.Config is not read: h has its own. It sets no ReadTimeout or
// WriteTimeout, which would cut listen streams: the handler bounds the body with
// BodyTimeout and each event with WriteTimeout. MaxConnections needs a listener that caps
// connections. Serve it with ListenAndServe, Serve, or ServeTLS.
func NewHTTPServer(h *Handler, lc ListenerConfig) *http.Server {
	cfg := h.ep.cfg
	return &http.Server{
		Addr:              cmp.Or(lc.Addr, DefaultAddr),
		Handler:           h,
		ReadHeaderTimeout: cmp.Or(lc.HeadTimeout, DefaultHeadTimeout),
		MaxHeaderBytes:    cfg.MaxHeaderBytes,
		IdleTimeout:       cmp.Or(lc.IdleTimeout, DefaultIdleTimeout),
		ConnContext:       ConnContext,
		ErrorLog:          slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelWarn),
	}
}

// probeInterval is how often a running request's connection is probed for a peer that went
// away (see peerProbe).
const probeInterval = 50 * time.Millisecond

// peerProbe tells whether the client of a running request closed its connection, without
// reading from it. net/http's own watch reads the connection in the background and cancels
// the request's context at end of file, but stops at the first byte that arrives (a
// pipelined request, a stray byte) and is blind from then on; the probe asks the kernel
// whether the peer has shut down its side, whatever bytes wait unread.
type peerProbe struct {
	conn net.Conn
	raw  syscall.RawConn // resolved at the first probe
}

// newPeerProbe returns the probe of the request's connection, or nil when the server did not
// use ConnContext or the platform cannot probe.
func newPeerProbe(ctx context.Context) *peerProbe {
	if !canProbePeer {
		return nil
	}
	c, _ := ctx.Value(connKey{}).(net.Conn)
	if c == nil {
		return nil
	}
	return &peerProbe{conn: c}
}

// Gone reports whether the peer has closed the connection (or it failed).
func (p *peerProbe) Gone() bool {
	if p.raw == nil {
		c := p.conn
		if tc, ok := c.(interface{ NetConn() net.Conn }); ok { // *tls.Conn
			c = tc.NetConn()
		}
		sc, ok := c.(syscall.Conn)
		if !ok {
			return false
		}
		raw, err := sc.SyscallConn()
		if err != nil {
			return false
		}
		p.raw = raw
	}
	return peerClosed(p.raw)
}

// wakeup is the one timer of a running net/http request: its deadline (RequestTimeout) and,
// with a probe, the probes every probeInterval until then.
type wakeup struct {
	t        *time.Timer
	deadline time.Time // zero: none
	probing  bool
}

// start arms the timer, returning its channel (nil when there is nothing to wait for).
func (u *wakeup) start(timeout time.Duration, probing bool) <-chan time.Time {
	now := time.Now()
	if timeout > 0 {
		u.deadline = now.Add(timeout)
	}
	u.probing = probing
	d, ok := u.next(now)
	if !ok {
		return nil
	}
	u.t = time.NewTimer(d)
	return u.t.C
}

func (u *wakeup) next(now time.Time) (time.Duration, bool) {
	if u.deadline.IsZero() {
		return probeInterval, u.probing
	}
	d := u.deadline.Sub(now)
	if u.probing && d > probeInterval {
		d = probeInterval
	}
	return d, true
}

// expired reports, after the timer fired, whether the deadline has passed; otherwise it
// rearms the timer for the next probe.
func (u *wakeup) expired() bool {
	now := time.Now()
	if !u.deadline.IsZero() && !now.Before(u.deadline) {
		return true
	}
	d, _ := u.next(now)
	u.t.Reset(d)
	return false
}

func (u *wakeup) stop() {
	if u.t != nil {
		u.t.Stop()
	}
}
