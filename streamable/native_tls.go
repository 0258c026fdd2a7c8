package streamable

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"time"

	"github.com/fastmcp-go/fastmcp/internal/loopback"
)

// alpnHTTP1 is the one application protocol the native listener speaks: fasthttp serves
// HTTP/1.1 only, so a client must never be told h2.
const alpnHTTP1 = "http/1.1"

// tlsState is the native listener's TLS: the server configuration handed to every accepted
// connection, and the reloader of a certificate read from files (nil otherwise).
type tlsState struct {
	cfg    *tls.Config
	reload *certReloader
}

// newTLSState builds the listener's TLS from cfg, or returns nil when cfg asks for none.
// The caller's *tls.Config is cloned, never modified.
func newTLSState(c ListenerConfig) (*tlsState, error) {
	files := c.TLSCertFile != "" || c.TLSKeyFile != ""
	if c.TLS == nil && !files {
		if c.TLSReloadInterval != 0 {
			return nil, fmt.Errorf("%w: TLSReloadInterval is set without TLSCertFile and TLSKeyFile", ErrInvalidConfig)
		}
		return nil, nil
	}
	base := &tls.Config{}
	if c.TLS != nil {
		base = c.TLS.Clone()
	}
	if err := enforceTLS(base); err != nil {
		return nil, err
	}
	st := &tlsState{cfg: base}
	hasCert := len(base.Certificates) > 0 || base.GetCertificate != nil || base.GetConfigForClient != nil
	switch {
	case files && (c.TLSCertFile == "" || c.TLSKeyFile == ""):
		return nil, fmt.Errorf("%w: TLSCertFile and TLSKeyFile go together", ErrInvalidConfig)
	case files && hasCert:
		return nil, fmt.Errorf("%w: TLS carries a certificate and TLSCertFile names another", ErrInvalidConfig)
	case files:
		r, err := newCertReloader(c.TLSCertFile, c.TLSKeyFile, c.TLSReloadInterval, c.Logger)
		if err != nil {
			return nil, err
		}
		st.reload = r
		base.GetCertificate = r.getCertificate
	case !hasCert:
		return nil, fmt.Errorf("%w: TLS has no certificate (Certificates, GetCertificate or GetConfigForClient)", ErrInvalidConfig)
	case c.TLSReloadInterval != 0:
		return nil, fmt.Errorf("%w: TLSReloadInterval is set without TLSCertFile and TLSKeyFile", ErrInvalidConfig)
	}
	if get := base.GetConfigForClient; get != nil {
		// A per-client configuration replaces the listener's for that handshake: it gets
		// the same floor and ALPN, or the handshake fails.
		base.GetConfigForClient = func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
			cc, err := get(hello)
			if cc == nil || err != nil {
				return cc, err
			}
			cc = cc.Clone()
			if err := enforceTLS(cc); err != nil {
				return nil, err
			}
			return cc, nil
		}
	}
	return st, nil
}

// enforceTLS holds a configuration to what the listener can serve safely: TLS 1.2 at least
// (zero MinVersion becomes 1.2), and ALPN http/1.1 only (empty NextProtos becomes it).
func enforceTLS(c *tls.Config) error {
	switch {
	case c.MinVersion == 0:
		c.MinVersion = tls.VersionTLS12
	case c.MinVersion < tls.VersionTLS12:
		return fmt.Errorf("%w: TLS MinVersion %s is below TLS 1.2", ErrInvalidConfig, tls.VersionName(c.MinVersion))
	}
	if c.MaxVersion != 0 && c.MaxVersion < tls.VersionTLS12 {
		return fmt.Errorf("%w: TLS MaxVersion %s is below TLS 1.2", ErrInvalidConfig, tls.VersionName(c.MaxVersion))
	}
	switch {
	case len(c.NextProtos) == 0:
		c.NextProtos = []string{alpnHTTP1}
	case !slices.Equal(c.NextProtos, []string{alpnHTTP1}):
		return fmt.Errorf("%w: TLS NextProtos %q: the native listener speaks only %s", ErrInvalidConfig, c.NextProtos, alpnHTTP1)
	}
	return nil
}

// tlsListener hands fasthttp each connection of the capped listener wrapped in a server-side
// TLS connection. The handshake runs on the connection's first read, on fasthttp's worker,
// through the listener's conn: HeadTimeout (from the accept), ReadTimeout and WriteTimeout
// bound it as they bound a plaintext request's head, and the connection counts against
// MaxConnections from the accept until it closes, handshake or not.
type tlsListener struct {
	*listener
	cfg *tls.Config
}

func (l tlsListener) Accept() (net.Conn, error) {
	c, err := l.listener.Accept()
	if err != nil {
		return nil, err
	}
	return tls.Server(c, l.cfg), nil
}

// listenerToServe is the listener fasthttp serves: l itself, or l under TLS.
func (s *Server) listenerToServe(l *listener) net.Listener {
	if s.tls == nil {
		return l
	}
	return tlsListener{listener: l, cfg: s.tls.cfg}
}

// connOf returns the listener's connection under nc, which fasthttp holds as it was
// accepted (the conn itself, or a TLS connection over it); nil when nc is not one of the
// listener's.
func connOf(nc net.Conn) *conn {
	switch c := nc.(type) {
	case *conn:
		return c
	case *tls.Conn:
		if wc, ok := c.NetConn().(*conn); ok {
			return wc
		}
	}
	return nil
}

// handshaking reports whether nc is a TLS connection whose handshake has not completed: its
// read errors are the head's (the handshake runs under HeadTimeout), whatever their type.
func handshaking(nc net.Conn) bool {
	tc, ok := nc.(*tls.Conn)
	return ok && !tc.ConnectionState().HandshakeComplete
}

// scheme is the URL scheme the listener serves.
func (s *Server) scheme() string {
	if s.tls != nil {
		return "https://"
	}
	return "http://"
}

// warnExposed logs, for a listener bound beyond loopback without TLS, that its requests
// travel in plaintext: with a gate, its credentials too (the seed warns even then).
func (s *Server) warnExposed(addr string) {
	switch {
	case s.tls != nil || loopback.Addr(addr):
	case s.ep.cfg.RequestGate == nil:
		s.ep.cfg.Logger.Warn("streamable: listening beyond loopback without TLS or a request gate", "addr", addr)
	default:
		s.ep.cfg.Logger.Warn("streamable: listening beyond loopback without TLS: requests and their credentials travel in plaintext", "addr", addr)
	}
}

// plaintextOnTLS is the answer to plain HTTP on the TLS listener, in plaintext, as net/http
// gives it: a client pointed at http:// instead of https:// learns why, instead of seeing
// the connection drop.
const plaintextOnTLS = "HTTP/1.0 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n" +
	"Client sent an HTTP request to an HTTPS server.\n"

// refusePlaintext answers a TLS handshake that failed on a first record that looks like an
// HTTP request with plaintextOnTLS, and reports whether it did (fasthttp then closes the
// connection, its own response failing on the failed handshake).
func (s *Server) refusePlaintext(err error) bool {
	var rhe tls.RecordHeaderError
	if s.tls == nil || !errors.As(err, &rhe) || rhe.Conn == nil || !looksLikeHTTP(rhe.RecordHeader[:]) {
		return false
	}
	_ = rhe.Conn.SetWriteDeadline(time.Now().Add(s.ep.cfg.WriteTimeout))
	_, _ = io.WriteString(rhe.Conn, plaintextOnTLS)
	return true
}

// looksLikeHTTP reports whether the first five bytes of a connection begin an HTTP request.
func looksLikeHTTP(b []byte) bool {
	for _, m := range []string{"GET /", "HEAD ", "POST ", "PUT /", "OPTIO", "DELET", "PATCH", "CONNE", "TRACE"} {
		if string(b) == m {
			return true
		}
	}
	return false
}
