package client

import "net/url"

// newHTTPTransport is the pooled HTTP transport; not built yet in this commit.
func newHTTPTransport(u *url.URL, cfg *Config) (transport, error) {
	return nil, ErrNotImplemented
}
