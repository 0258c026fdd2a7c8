package main

import (
	"context"
	"errors"
	"log/slog"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/pool"
	"github.com/fastmcp-go/fastmcp/stdio"
)

// serveStdio serves srv on stdin and stdout until stdin ends (exit 0) or ctx ends on a signal
// (exit 0); a write failure or another transport error exits 1.
func serveStdio(ctx context.Context, srv *fastmcp.Server, o *serveOptions, logger *slog.Logger) int {
	timeout := o.requestTimeout
	if timeout == 0 {
		timeout = pool.NoTimeout
	}
	err := stdio.Serve(ctx, srv, stdio.Config{
		WriteTimeout:     o.writeTimeout,
		MaxLineBytes:     o.maxLineBytes,
		RequestTimeout:   timeout,
		Pool:             pool.Config{MaxConcurrency: o.maxConcurrency, MaxQueue: o.queue(), Logger: logger},
		MaxSubscriptions: o.maxSubscriptions,
		Logger:           logger,
	})
	switch {
	case err == nil, ctx.Err() != nil: // the end of stdin, or a signal
		return 0
	case errors.Is(err, stdio.ErrInvalidConfig):
		logger.Error("serve --stdio: invalid flags", "err", err)
		return 2
	}
	logger.Error("serve --stdio stopped", "err", err)
	return 1
}
