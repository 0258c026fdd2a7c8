package client

import (
	"context"
	"errors"
	"time"

	"github.com/fastmcp-go/fastmcp/client/internal/clientlink"
)

// The in-process transport of package client/inprocess: a request is served by a function in
// this process (the server core's Dispatch) on the caller's goroutine, with no framing and no
// copy of the reply. The function comes through client/internal/clientlink, so this package
// never imports the core: a program that only dials servers links none of it.

func init() { clientlink.NewClient = newLinkedClient }

// newLinkedClient returns a *Client over dispatch; cfg is a Config.
func newLinkedClient(dispatch clientlink.Dispatch, cfg any) (any, error) {
	c, err := cfg.(Config).withDefaults()
	if err != nil {
		return nil, err
	}
	cl, err := newClient(context.Background(), linkedTransport{dispatch, c.RequestTimeout}, c)
	if err != nil {
		return nil, err
	}
	return cl, nil
}

// linkedTransport hands request bytes to dispatch.
type linkedTransport struct {
	dispatch clientlink.Dispatch
	timeout  time.Duration // Config.RequestTimeout
}

func (l linkedTransport) roundTrip(ctx context.Context, req []byte, hdr *headers, onMessage func([]byte) ([]byte, error)) ([]byte, error) {
	timeout := l.timeout
	if hdr != nil && hdr.timeout > 0 {
		timeout = hdr.timeout
	}
	if dl, ok := ctx.Deadline(); !ok || time.Until(dl) > timeout {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	resp := l.dispatch(ctx, req, linkedSink{onMessage})
	if resp == nil {
		if err := context.Cause(ctx); err != nil {
			return nil, err // cancelled: the server writes nothing for it
		}
		return nil, errors.New("client: in-process: the server gave no reply")
	}
	return resp, nil // Dispatch's reply is a fresh slice: the caller may keep it
}

// notify serves a notification; the core handles none the client sends in the modern era
// (cancellation is the context's), so this only keeps the contract.
func (l linkedTransport) notify(ctx context.Context, msg []byte, _ *headers) error {
	l.dispatch(ctx, msg, nil)
	return nil
}

// cancelsByClose is true: the request's context is the handler's.
func (linkedTransport) cancelsByClose() bool { return true }

func (linkedTransport) close() error { return nil }

// linkedSink hands the notifications of a request (progress, log messages) to its call.
type linkedSink struct {
	onMessage func([]byte) ([]byte, error)
}

func (s linkedSink) Notify(_ context.Context, msg []byte) error {
	_, err := s.onMessage(msg)
	return err
}
