package client

import (
	"context"
	"errors"
	"time"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// Direct returns a Client connected in-process to srv: each request is served by
// srv.Dispatch on the caller's goroutine, with no transport, no framing and no copy of the
// server's reply. It is for testing an application's tools with the real client in a unit
// test. It speaks 2026-07-28 only (cfg.Era must be EraModern or the zero EraAuto); MRTR input
// requests are answered by cfg's handlers as over any transport. cfg.Command must be empty;
// the pool settings are unused.
//
// Cancellation is the context's: a call whose ctx ends, or whose RequestTimeout passes,
// cancels the handler's context directly, so nothing is sent. Close is a no-op for srv, which the caller keeps.
func Direct(srv *fastmcp.Server, cfg Config) (*Client, error) {
	if srv == nil {
		return nil, errors.New("client: Direct: nil Server")
	}
	if cfg.Era != EraModern && cfg.Era != EraAuto {
		return nil, errors.New("client: Direct speaks 2026-07-28 only: leave Config.Era EraModern")
	}
	cfg.Era = EraModern // the in-process server is modern: nothing to find out
	if cfg.Command != "" {
		return nil, errors.New("client: Direct: Config.Command is for stdio; leave it empty")
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return newClient(context.Background(), directTransport{srv, cfg.RequestTimeout}, cfg)
}

// directTransport hands request bytes to the server's Dispatch.
type directTransport struct {
	srv     *fastmcp.Server
	timeout time.Duration // Config.RequestTimeout
}

func (d directTransport) roundTrip(ctx context.Context, req []byte, hdr *headers, onMessage func([]byte) ([]byte, error)) ([]byte, error) {
	timeout := d.timeout
	if hdr != nil && hdr.timeout > 0 {
		timeout = hdr.timeout
	}
	if dl, ok := ctx.Deadline(); !ok || time.Until(dl) > timeout {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	resp := d.srv.Dispatch(ctx, req, directSink{onMessage})
	if resp == nil {
		if err := context.Cause(ctx); err != nil {
			return nil, err // cancelled: the server writes nothing for it
		}
		return nil, errors.New("client: Direct: the server gave no reply")
	}
	return resp, nil // Dispatch's reply is a fresh slice: the caller may keep it
}

// notify serves a notification; the core handles none the client sends in the modern era
// (cancellation is the context's), so this only keeps the contract.
func (d directTransport) notify(ctx context.Context, msg []byte, _ *headers) error {
	d.srv.Dispatch(ctx, msg, nil)
	return nil
}

// cancelsByClose is true: the request's context is the handler's.
func (directTransport) cancelsByClose() bool { return true }

func (directTransport) close() error { return nil }

// directSink hands the notifications of a request (progress, log messages) to its call.
type directSink struct {
	onMessage func([]byte) ([]byte, error)
}

func (s directSink) Notify(_ context.Context, msg []byte) error {
	_, err := s.onMessage(msg)
	return err
}
