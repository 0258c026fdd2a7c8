package client

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"
)

// Client is a connection to one MCP server. It is safe for concurrent use; Close it when
// done.
type Client struct {
	cfg Config
	t   transport

	nextID atomic.Int64

	// modern reports the era the connection settled on; version the revision sent.
	modern  bool
	version string

	closeOnce sync.Once
	closed    atomic.Bool
}

// startStdio starts the stdio transport for cfg.Command. The stdio file sets it, so this file
// does not depend on os/exec.
var startStdio func(ctx context.Context, cfg *Config) (transport, error)

// Connect connects to the MCP server at target, an http:// or https:// URL of its endpoint.
// To start a server over stdio instead, leave target empty and set cfg.Command.
//
// With Era EraModern (the default) Connect sends nothing; EraLegacy performs the initialize
// handshake and EraAuto probes server/discover first. Invalid configuration is an error.
func Connect(ctx context.Context, target string, cfg Config) (*Client, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	var t transport
	switch {
	case cfg.Command != "" && target != "":
		return nil, errors.New("client: set either a target URL or Config.Command, not both")
	case cfg.Command != "":
		if startStdio == nil {
			return nil, fmt.Errorf("client: stdio transport: %w", ErrNotImplemented)
		}
		t, err = startStdio(ctx, &cfg)
	default:
		u, perr := url.Parse(target)
		if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("client: target %q is not an http(s) URL", target)
		}
		t, err = newHTTPTransport(u, &cfg)
	}
	if err != nil {
		return nil, err
	}
	return newClient(ctx, t, cfg)
}

// newClient settles the era over t and returns the Client; it closes t on failure. Direct
// and the transports' tests build clients through it.
func newClient(ctx context.Context, t transport, cfg Config) (*Client, error) {
	c := &Client{cfg: cfg, t: t, modern: cfg.Era != EraLegacy, version: modernVersion}
	if err := c.negotiate(ctx); err != nil {
		_ = t.close()
		return nil, err
	}
	return c, nil
}

// Close closes the connection: idle HTTP connections close at once, in-flight requests finish
// on their own. Close is idempotent.
func (c *Client) Close() error {
	var err error
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		err = c.t.close()
	})
	return err
}
