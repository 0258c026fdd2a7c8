package streamable

import (
	"bufio"
	"crypto/tls"
	"net"
	"testing"

	"github.com/valyala/fasthttp/fasthttputil"
)

// BenchmarkListenerTLS is BenchmarkListener's keep-alive tools/call with and without TLS on
// the native listener, over in-memory connections, in one run: the difference is the
// record layer's cost per request (both sides of it: the client's TLS runs in the same
// process). Each connection handshakes once, before the timer.
func BenchmarkListenerTLS(b *testing.B) {
	ca := newTestCA(b)
	req := echoRequest()
	b.Run("tls=off", func(b *testing.B) {
		ln := serveInmemory(b)
		runClients(b, ln.Dial, req)
	})
	b.Run("tls=on", func(b *testing.B) {
		_, dial := serveInmemoryTLS(b, ca)
		runClients(b, dial, req)
	})
}

// serveInmemoryTLS serves the test core over TLS on an in-memory listener; dial opens a
// client connection that trusts ca, its handshake done.
func serveInmemoryTLS(tb testing.TB, ca *testCA) (*fasthttputil.InmemoryListener, func() (net.Conn, error)) {
	ln := fasthttputil.NewInmemoryListener()
	serveBenchWith(tb, ln, ListenerConfig{TLS: ca.serverTLS(tb, 2)})
	dial := func() (net.Conn, error) {
		c, err := ln.Dial()
		if err != nil {
			return nil, err
		}
		tc := tls.Client(c, ca.clientTLS())
		if err := tc.Handshake(); err != nil {
			_ = c.Close()
			return nil, err
		}
		return tc, nil
	}
	return ln, dial
}

// BenchmarkListenerTLSHandshake measures what a client that does not keep its connection
// pays over TLS: dial, handshake (ECDSA P-256, TLS 1.3, no resumption), one tools/call, close;
// with tls=off the same without the handshake, in one run.
func BenchmarkListenerTLSHandshake(b *testing.B) {
	ca := newTestCA(b)
	req := echoRequest()
	plain := serveInmemory(b)
	_, dialTLS := serveInmemoryTLS(b, ca)
	for _, bc := range []struct {
		name string
		dial func() (net.Conn, error)
	}{{"tls=off", plain.Dial}, {"tls=on", dialTLS}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c, err := bc.dial()
				if err != nil {
					b.Fatal(err)
				}
				if _, err := c.Write(req); err != nil {
					b.Fatal(err)
				}
				if err := readOne(bufio.NewReader(c)); err != nil {
					b.Fatal(err)
				}
				_ = c.Close()
			}
		})
	}
}
