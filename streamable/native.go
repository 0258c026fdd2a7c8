package streamable

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"

	"github.com/valyala/fasthttp"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/internal/loopback"
	"github.com/fastmcp-go/fastmcp/pool"
)

// watchDelay is how long a request runs before its connection is watched for the client
// going away. Fast requests never pay for a watch; a disconnect during a slow one cancels it
// within about this delay.
const watchDelay = 2 * tickInterval

// testHookActive, if non-nil, runs when a connection has read the first byte of a request.
var testHookActive func()

// Server is the native Streamable HTTP listener, on fasthttp. Create it with [New]; serve it
// until the process is told to stop, then drain it, with [Server.Run]; or start it with
// [Server.Listen] and [Server.Serve] (or [Server.ListenAndServe]) and stop it with
// [Server.Shutdown]. Its methods are safe for concurrent use.
type Server struct {
	cfg ListenerConfig // resolved; cfg.Config is ep's
	ep  *endpoint
	fs  *fasthttp.Server
	tls *tlsState // nil: plaintext

	mu       sync.Mutex
	ln       *listener
	serving  chan struct{} // closed when Serve returns
	served   bool          // Serve was called
	draining atomic.Bool
	// unready is set when Shutdown begins, before its DrainDelay: Ready is false from then.
	unready  atomic.Bool
	streams  streamSet
	tick     *ticker // coarse clock: connection deadlines, watching slow requests' connections
	tickStop sync.Once
	// serveEnded is set when Serve returns: the tick then ends with the last connection.
	serveEnded atomic.Bool
	// shutdownDone is closed when the first Shutdown returns, with shutdownErr its result.
	shutdownDone chan struct{}
	shutdownErr  error
}

// ErrServerClosed is what Serve and ListenAndServe return after [Server.Shutdown], as
// net/http's servers do.
var ErrServerClosed = errors.New("streamable: Server closed")

// New returns a listener serving srv under cfg; invalid configuration is an error wrapping
// [ErrInvalidConfig].
func New(srv *fastmcp.Server, cfg ListenerConfig) (*Server, error) {
	cfg, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	tlsSt, err := newTLSState(cfg) // before the endpoint: a refused config leaves no executor behind
	if err != nil {
		return nil, err
	}
	ep, err := newEndpoint(srv, cfg.Config, loopback.Addr(cfg.Addr))
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, ep: ep, tls: tlsSt, serving: make(chan struct{}), tick: newTicker(), shutdownDone: make(chan struct{})}
	c := cfg
	s.tick.hold = int64(max(c.HeadTimeout, c.ReadTimeout, c.IdleTimeout, c.WriteTimeout)) // the bounds timed from the tick's clock
	s.fs = &fasthttp.Server{
		Handler:        s.handle,
		ErrorHandler:   s.handleError,
		HeaderReceived: s.headerReceived,
		Name:           "fastmcp",
		// No ReadTimeout, IdleTimeout or WriteTimeout: the listener applies them (see
		// deadlines), so fasthttp reads no clock for them.
		ReadBufferSize:               c.MaxHeaderBytes,
		MaxRequestBodySize:           c.MaxBodyBytes,
		MaxRequestsPerConn:           c.MaxRequestsPerConn,
		Concurrency:                  c.MaxConnections + 16, // the listener caps first; keep fasthttp's 503 out of the way
		CloseOnShutdown:              true,
		KeepHijackedConns:            true, // listen streams own their connection (see serveListen)
		NoDefaultContentType:         true,
		DisablePreParseMultipartForm: true,
		// Errors name their cause without quoting the request (which may carry credentials),
		// and an unsupported Transfer-Encoding is ErrUnsupportedTransferEncoding (411).
		SecureErrorLogMessage: true,
		Logger:                fasthttpLogger{c.Logger},
		ConnState: func(nc net.Conn, st fasthttp.ConnState) {
			c := connOf(nc)
			if c == nil {
				return
			}
			switch st {
			case fasthttp.StateIdle:
				c.idle()
			case fasthttp.StateActive:
				c.active()
				if testHookActive != nil {
					testHookActive()
				}
			}
		},
	}
	if plainDeadlines {
		s.fs.ReadTimeout, s.fs.IdleTimeout, s.fs.WriteTimeout = c.ReadTimeout, c.IdleTimeout, c.WriteTimeout
	}
	return s, nil
}

// Listen binds cfg.Addr. After it, [Server.URL] names the endpoint.
func (s *Server) Listen() error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return err
	}
	s.warnExposed(ln.Addr().String())
	s.setListener(ln)
	return nil
}

func (s *Server) setListener(ln net.Listener) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setListenerLocked(ln)
}

func (s *Server) setListenerLocked(ln net.Listener) {
	s.ln = &listener{Listener: ln, max: int64(s.cfg.MaxConnections), stats: &s.ep.stats, clock: &s.tick.now,
		readTimeout: s.cfg.ReadTimeout, headTimeout: s.cfg.HeadTimeout, idleTimeout: s.cfg.IdleTimeout, writeTimeout: s.ep.cfg.WriteTimeout,
		stashMax: s.ep.cfg.MaxHeaderBytes} // a watch keeps at most one read buffer
	if s.fs.ReadTimeout > 0 { // plainDeadlines
		l := s.ln
		l.plain, l.readTimeout, l.headTimeout, l.idleTimeout, l.writeTimeout = true, 0, 0, 0, 0
	}
}

// URL returns the endpoint's URL, such as http://127.0.0.1:8080/mcp (https with TLS), once
// listening.
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return ""
	}
	return s.scheme() + s.ln.Addr().String() + s.ep.cfg.Path
}

// Serve serves the listener Listen bound until Shutdown. It returns [ErrServerClosed]
// after a Shutdown, or the error that stopped it. Called after Shutdown has begun, it
// serves nothing, closes the listener and returns ErrServerClosed. Serve, ServeListener,
// ListenAndServe and Run may be called once, one of them.
func (s *Server) Serve() error { return s.serve(nil) }

// ServeListener is Serve on ln, a listener of the caller's (Listen need not be called).
func (s *Server) ServeListener(ln net.Listener) error {
	if ln == nil {
		return errors.New("streamable: ServeListener with a nil listener")
	}
	return s.serve(ln)
}

func (s *Server) serve(ln net.Listener) error {
	l, err := s.beginServe(ln)
	if l == nil {
		return err
	}
	var exec interface{ Cancel(pool.Key, error) bool }
	if !s.cfg.DisableInline {
		exec = s.ep.exec
	}
	s.tick.onTick = func(now int64) { l.onTick(now, int64(watchDelay), exec) }
	// Serve returns once the listener is closed (or fails), while fasthttp still serves the
	// open connections, whose deadlines the tick enforces: it ends with the last of them, or
	// when Shutdown stops it.
	s.tick.finished = func() bool { return s.serveEnded.Load() && l.conns.count() == 0 }
	go s.tick.run()
	defer close(s.serving)
	err = s.fs.Serve(s.listenerToServe(l))
	s.serveEnded.Store(true)
	if s.draining.Load() {
		return ErrServerClosed
	}
	return err
}

// beginServe takes the listener to serve, ln or the one Listen bound (ln nil), and marks
// the server served, in one step that Shutdown's reading of both cannot split: a Shutdown
// either sees the listener (and closes it, and waits for Serve) or has begun before, and
// then nothing is served. A nil listener means Serve returns err.
func (s *Server) beginServe(ln net.Listener) (*listener, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.served:
		return nil, errors.New("streamable: Serve called twice")
	case s.draining.Load():
		if ln != nil {
			_ = ln.Close()
		}
		if s.ln != nil {
			_ = s.ln.Listener.Close() // bound by a Listen after Shutdown began
		}
		return nil, ErrServerClosed
	}
	if ln != nil {
		s.setListenerLocked(ln)
	}
	if s.ln == nil {
		return nil, errors.New("streamable: Serve before Listen")
	}
	s.served = true
	return s.ln, nil
}

// stopTick stops the tick (Shutdown's last step), once.
func (s *Server) stopTick() { s.tickStop.Do(s.tick.Stop) }

// ListenAndServe is Listen then Serve.
func (s *Server) ListenAndServe() error {
	if err := s.Listen(); err != nil {
		return err
	}
	return s.Serve()
}

// Stats returns the transport's counters.
func (s *Server) Stats() Stats { return s.ep.stats.snapshot() }

// Executor returns the executor that runs requests.
func (s *Server) Executor() *pool.Executor { return s.ep.exec }

type fasthttpLogger struct {
	l interface{ Debug(string, ...any) }
}

func (f fasthttpLogger) Printf(format string, args ...any) {
	f.l.Debug("fasthttp: " + fmt.Sprintf(format, args...))
}
