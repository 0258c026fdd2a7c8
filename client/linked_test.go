package client

import (
	"context"
	"time"

	"github.com/fastmcp-go/fastmcp/client/internal/clientlink"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// This package's tests drive the core in-process as package client/inprocess does, which
// they cannot import (it imports this package): through the linked transport over
// srv.Dispatch.

// coreDispatch is srv.Dispatch as the link carries it.
func coreDispatch(srv *fastmcp.Server) clientlink.Dispatch {
	return func(ctx context.Context, msg []byte, sink clientlink.Sink) []byte {
		return srv.Dispatch(ctx, msg, sink)
	}
}

// coreTransport is the in-process transport to srv, bounded by timeout (Config.RequestTimeout).
func coreTransport(srv *fastmcp.Server, timeout time.Duration) linkedTransport {
	return linkedTransport{coreDispatch(srv), timeout}
}

// coreClient is a Client in-process to srv, as inprocess.Connect makes it.
func coreClient(srv *fastmcp.Server, cfg Config) (*Client, error) {
	c, err := newLinkedClient(coreDispatch(srv), cfg)
	if err != nil {
		return nil, err
	}
	return c.(*Client), nil
}
