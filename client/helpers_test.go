package client

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fixtures"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// startServer serves the demo and conformance catalogs on a free loopback port, both eras.
func startServer(t testing.TB, cfg streamable.ListenerConfig) *streamable.Server {
	t.Helper()
	return startServerWith(t, nil, cfg)
}

// startServerWith is startServer with the core's Config (nil: the defaults).
func startServerWith(t testing.TB, core *fastmcp.Config, cfg streamable.ListenerConfig) *streamable.Server {
	t.Helper()
	srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "client-test", Version: "1.0.0"}, core)
	require.NoError(t, err)
	require.NoError(t, fixtures.Register(srv, "conformance,demo"))
	cfg.Addr = "127.0.0.1:0"
	s, err := streamable.New(srv, cfg)
	require.NoError(t, err)
	require.NoError(t, s.Listen())
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
		require.ErrorIs(t, <-done, streamable.ErrServerClosed)
	})
	return s
}

// connect connects to url with cfg and closes the client at the end.
func connect(t testing.TB, url string, cfg Config) *Client {
	t.Helper()
	c, err := Connect(context.Background(), url, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}
