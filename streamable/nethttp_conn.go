package streamable

import (
	"cmp"
	"context"
	"log/slog"
	"net"
	"net/http"
	"reflect"
	"syscall"
	"time"
)

// connKey is the context key of the connection a net/http request arrived on.
type connKey struct{}

// ConnContext, as an [http.Server]'s ConnContext, lets a [Handler] see the connection a
// request arrived on, so that it can cancel a request whose client went away even after
// the client sent further bytes (on Linux; see "Cancellation" in the package doc).
// [NewHTTPServer] sets it; a server with its own ConnContext calls it from there. A listener
// that wraps its connections keeps them probeable if the wrapper embeds the net.Conn or has
// a NetConn method returning it.
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
	conn     net.Conn
	raw      syscall.RawConn // resolved at the first probe
	noSocket bool            // no socket found under conn: the probe reports nothing
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
		if p.noSocket {
			return false
		}
		sc := socketOf(p.conn)
		if sc == nil {
			p.noSocket = true
			return false
		}
		raw, err := sc.SyscallConn()
		if err != nil {
			p.noSocket = true
			return false
		}
		p.raw = raw
	}
	return peerClosed(p.raw)
}

// maxUnwrap bounds the layers socketOf looks through (a wrapper that wraps itself, or a
// long chain, is given up on).
const maxUnwrap = 8

// socketOf finds the socket under c: c itself when it is a syscall.Conn, else the connection
// it wraps, layer by layer. A *tls.Conn, and any wrapper with a NetConn method, names it;
// most listener wrappers (golang.org/x/net/netutil.LimitListener's, connection counters)
// only embed it, and have neither method: the embedded net.Conn is the one under them. It
// returns nil when there is no socket (net.Pipe, a custom transport).
func socketOf(c net.Conn) syscall.Conn {
	for range maxUnwrap {
		if sc, ok := c.(syscall.Conn); ok {
			return sc
		}
		if c = innerConn(c); c == nil {
			return nil
		}
	}
	return nil
}

var netConnType = reflect.TypeFor[net.Conn]()

// innerConn is the connection c wraps: its NetConn, or its embedded (exported) net.Conn
// field; nil if neither.
func innerConn(c net.Conn) net.Conn {
	if w, ok := c.(interface{ NetConn() net.Conn }); ok {
		return w.NetConn()
	}
	v := reflect.ValueOf(c)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil
	}
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if f.Anonymous && f.IsExported() && f.Type.Implements(netConnType) {
			inner, _ := v.Field(i).Interface().(net.Conn)
			return inner
		}
	}
	return nil
}
