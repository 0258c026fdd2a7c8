package loadtest

import (
	"context"
	"crypto/tls"
	"net"
)

// clientTLS is the TLS configuration of an https target: a clone of t.TLS (nil: the
// system's roots), naming the URL's host for verification unless it names a server itself,
// and offering http/1.1, what the scenarios speak.
func clientTLS(t *tls.Config, host string) *tls.Config {
	c := &tls.Config{}
	if t != nil {
		c = t.Clone()
	}
	if c.ServerName == "" {
		c.ServerName = host
	}
	if len(c.NextProtos) == 0 {
		c.NextProtos = []string{"http/1.1"}
	}
	return c
}

// dial opens a connection to ep: TCP, and for an https target TLS over it, its handshake
// done. dialTimeout bounds both: a handshake that stalls fails the dial like a refused
// connection.
func (ep *endpoint) dial(ctx context.Context) (net.Conn, error) {
	d := &net.Dialer{Timeout: dialTimeout}
	if ep.tls == nil {
		return d.DialContext(ctx, "tcp", ep.addr)
	}
	td := &tls.Dialer{NetDialer: d, Config: ep.tls}
	return td.DialContext(ctx, "tcp", ep.addr)
}
