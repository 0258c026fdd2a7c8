package main

import (
	"cmp"
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/internal/loopback"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// netEndpoint serves the streamable package's net/http adapter with the http.Server that
// streamable.NewHTTPServer builds (head timeout, head size, idle timeout, ConnContext for
// the disconnect probe); a limitListener caps its connections.
type netEndpoint struct {
	srv     *fastmcp.Server
	handler *streamable.Handler
	hs      *http.Server
	ln      net.Listener
	url     string
	drain   time.Duration
}

func newNetHTTP(srv *fastmcp.Server, cfg streamable.ListenerConfig) (endpoint, error) {
	h, err := streamable.NewHandler(srv, hostedConfig(cfg))
	if err != nil {
		return nil, err
	}
	ln, url, err := listenFor(h, cfg)
	if err != nil {
		return nil, err
	}
	// NewHTTPServer applies the Config's connection settings (head timeout, head size, idle
	// timeout, its logger) and sets ConnContext, which the handler's disconnect probe needs.
	hs := streamable.NewHTTPServer(h, cfg)
	return &netEndpoint{
		srv:     srv,
		handler: h,
		hs:      hs,
		ln:      newLimitListener(ln, cfg.MaxConnections),
		url:     url,
		drain:   cfg.DrainTimeout,
	}, nil
}

func (e *netEndpoint) URL() string { return e.url }

func (e *netEndpoint) Serve() error {
	if err := e.hs.Serve(e.ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Shutdown ends the listen streams gracefully, lets requests in flight finish within the
// drain timeout, then closes what is left and stops the handler's executor.
func (e *netEndpoint) Shutdown(ctx context.Context) error {
	e.srv.CloseSubscriptions()
	dctx, cancel := context.WithTimeout(ctx, e.drain)
	defer cancel()
	err := e.hs.Shutdown(dctx)
	if err != nil {
		_ = e.hs.Close()
	}
	if cerr := e.handler.Close(ctx); err == nil {
		err = cerr
	}
	return err
}

// hostedConfig is the endpoint's part of cfg for a host other than the native listener,
// which cannot tell the address it is served on: the loopback Host check applies only when
// cfg.Addr is a loopback address, as on the native listener.
func hostedConfig(cfg streamable.ListenerConfig) streamable.Config {
	c := cfg.Config
	if !loopback.Addr(cmp.Or(cfg.Addr, streamable.DefaultAddr)) {
		c.DisableHostCheck = true
	}
	return c
}

// listenFor opens cfg.Addr for a hosted endpoint and returns its URL; on failure it closes
// the endpoint's handler h.
func listenFor(h interface{ Close(context.Context) error }, cfg streamable.ListenerConfig) (net.Listener, string, error) {
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		_ = h.Close(context.Background())
		return nil, "", err
	}
	path := cfg.Path
	if path == "" {
		path = streamable.DefaultPath
	}
	return ln, "http://" + ln.Addr().String() + path, nil
}

// limitListener closes connections accepted while max are open, without reading them (as the
// native listener's MaxConnections does). max <= 0 selects streamable.DefaultMaxConnections.
type limitListener struct {
	net.Listener
	slots chan struct{}
}

func newLimitListener(ln net.Listener, max int) net.Listener {
	if max <= 0 {
		max = streamable.DefaultMaxConnections
	}
	return &limitListener{Listener: ln, slots: make(chan struct{}, max)}
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
			return &limitConn{Conn: c, release: func() { <-l.slots }}, nil
		default:
			_ = c.Close()
		}
	}
}

type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
