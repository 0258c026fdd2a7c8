package main

import (
	"context"
	"net"

	"github.com/valyala/fasthttp"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// mountEndpoint serves the streamable package's fasthttp mount (streamable.RequestHandler)
// from a plain fasthttp.Server, as an application embedding the endpoint does, with the host
// settings the package doc asks for ("Mounting in a fasthttp server").
type mountEndpoint struct {
	handler *streamable.RequestHandler
	fs      *fasthttp.Server
	ln      net.Listener
	url     string
}

func newFastMount(srv *fastmcp.Server, cfg streamable.ListenerConfig) (endpoint, error) {
	h, err := streamable.NewRequestHandler(srv, hostedConfig(cfg))
	if err != nil {
		return nil, err
	}
	ln, url, err := listenFor(h, cfg)
	if err != nil {
		return nil, err
	}
	fs := &fasthttp.Server{
		Handler:               h.Handler(),
		HeaderReceived:        h.HeaderReceived,
		ErrorHandler:          h.ErrorHandler,
		ReadBufferSize:        cfg.MaxHeaderBytes + 4096,
		MaxRequestBodySize:    cfg.MaxBodyBytes,
		ReadTimeout:           cfg.ReadTimeout,
		IdleTimeout:           cfg.IdleTimeout,
		Concurrency:           cfg.MaxConnections,
		NoDefaultServerHeader: true,
	}
	return &mountEndpoint{handler: h, fs: fs, ln: ln, url: url}, nil
}

func (e *mountEndpoint) URL() string { return e.url }

func (e *mountEndpoint) Serve() error { return e.fs.Serve(e.ln) }

// Shutdown lets requests on the host's connections finish (fasthttp's Shutdown), then drains
// the handler: listen streams, which hijacked their connections, and an owned executor.
func (e *mountEndpoint) Shutdown(ctx context.Context) error {
	err := e.fs.ShutdownWithContext(ctx)
	if cerr := e.handler.Close(ctx); err == nil {
		err = cerr
	}
	return err
}
