package streamable

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// testCA is a certificate authority made for one test: nothing is read from or written to
// the repository.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

func newTestCA(t testing.TB) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "fastmcp test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return &testCA{cert: cert, key: key}
}

// pool is a root pool trusting only the CA.
func (ca *testCA) pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.cert)
	return p
}

// issue returns a server certificate for 127.0.0.1 and localhost with the given serial, as
// PEM (certificate, key) and as a tls.Certificate.
func (ca *testCA) issue(t testing.TB, serial int64) (certPEM, keyPEM []byte, pair tls.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      pkix.Name{CommonName: "localhost"},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	require.NoError(t, err)
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(t, err)
	certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM = pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
	pair, err = tls.X509KeyPair(certPEM, keyPEM)
	require.NoError(t, err)
	return certPEM, keyPEM, pair
}

// serverTLS is a server configuration with one certificate from ca.
func (ca *testCA) serverTLS(t testing.TB, serial int64) *tls.Config {
	_, _, pair := ca.issue(t, serial)
	return &tls.Config{Certificates: []tls.Certificate{pair}}
}

// clientTLS is a client configuration that trusts only ca and offers http/1.1 by ALPN.
func (ca *testCA) clientTLS() *tls.Config {
	return &tls.Config{RootCAs: ca.pool(), ServerName: "127.0.0.1", NextProtos: []string{"http/1.1"}}
}

// startPrepared is startServer with prep run on the server before it serves.
func startPrepared(t testing.TB, core *fastmcp.Server, cfg ListenerConfig, prep func(*Server)) *Server {
	t.Helper()
	cfg.Addr = "127.0.0.1:0"
	s, err := New(core, cfg)
	require.NoError(t, err)
	prep(s)
	require.NoError(t, s.Listen())
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
		require.ErrorIs(t, <-done, ErrServerClosed)
	})
	return s
}

// addrOf is the listener's host:port.
func addrOf(s *Server) string { return s.ln.Addr().String() }

// dialTLS opens a TLS connection to s, its handshake done, with a 10 s deadline on it.
func dialTLS(t testing.TB, s *Server, cfg *tls.Config) *tls.Conn {
	t.Helper()
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", addrOf(s), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
	return c
}

// exchangeTLS sends raw bytes over a new TLS connection and reads one response.
func exchangeTLS(t testing.TB, s *Server, cfg *tls.Config, raw string) (*http.Response, string) {
	t.Helper()
	c := dialTLS(t, s, cfg)
	_, err := io.WriteString(c, raw)
	require.NoError(t, err)
	return readResponse(t, bufio.NewReader(c))
}

// clientHello returns the first flight of a TLS client handshake with cfg: a ClientHello
// record, captured from a client talking into a pipe.
func clientHello(t testing.TB, cfg *tls.Config) []byte {
	t.Helper()
	client, server := net.Pipe()
	defer server.Close()
	go func() {
		_ = tls.Client(client, cfg).Handshake() // fails when the pipe closes
		client.Close()
	}()
	head := make([]byte, 5)
	_, err := io.ReadFull(server, head)
	require.NoError(t, err)
	require.Equal(t, byte(22), head[0], "a handshake record")
	body := make([]byte, int(head[3])<<8|int(head[4]))
	_, err = io.ReadFull(server, body)
	require.NoError(t, err)
	return append(head, body...)
}
