package inprocess

import (
	"context"
	"errors"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/client/internal/clientlink"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// Connect returns a Client connected in-process to srv: each request is served by
// srv.Dispatch on the caller's goroutine. It speaks 2026-07-28 only (cfg.Era must be left
// zero or be EraModern); cfg.Command must be empty, and the pool settings are unused. Close is
// a no-op for srv, which the caller keeps.
func Connect(srv *fastmcp.Server, cfg client.Config) (*client.Client, error) {
	if srv == nil {
		return nil, errors.New("inprocess: nil Server")
	}
	var unset client.Era
	if cfg.Era != unset && cfg.Era != client.EraModern {
		return nil, errors.New("inprocess: speaks 2026-07-28 only: leave Config.Era zero or EraModern")
	}
	if cfg.Command != "" {
		return nil, errors.New("inprocess: Config.Command is for stdio; leave it empty")
	}
	cfg.Era = client.EraModern
	c, err := clientlink.NewClient(func(ctx context.Context, msg []byte, sink clientlink.Sink) []byte {
		return srv.Dispatch(ctx, msg, sink)
	}, cfg)
	if err != nil {
		return nil, err
	}
	return c.(*client.Client), nil
}
