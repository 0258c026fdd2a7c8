package loadtest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"math/big"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/streamable"
)

// selfSigned is a server configuration with a certificate for 127.0.0.1 made for the test.
func selfSigned(t testing.TB) *tls.Config {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	leaf, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}}}
}

// trustOf is a client configuration trusting the server configuration's certificate; nil
// for a plaintext endpoint.
func trustOf(server *tls.Config) *tls.Config {
	if server == nil {
		return nil
	}
	roots := x509.NewCertPool()
	roots.AddCert(server.Certificates[0].Leaf)
	return &tls.Config{RootCAs: roots}
}

// An https target is driven over TLS, trusting the certificate the target's TLS names;
// each connection handshakes once, so the errors are none and the calls all reach the core.
func TestThroughputTLS(t *testing.T) {
	e := startEndpoint(t, streamable.ListenerConfig{TLS: selfSigned(t)})
	target := e.target()
	require.Contains(t, target.URL, "https://127.0.0.1:")
	res, err := Throughput(context.Background(), ThroughputConfig{Target: target, Connections: 2, Duration: 200 * time.Millisecond, Warmup: -1})
	require.NoError(t, err)
	assert.Empty(t, res.Errors)
	assert.Positive(t, res.Requests)
	assert.GreaterOrEqual(t, e.admitted.Load(), res.Requests)
}

// Without the certificate's trust an https target fails its check: the handshake refuses an
// unknown authority, and nothing is sent in plaintext instead.
func TestTLSTargetUntrusted(t *testing.T) {
	e := startEndpoint(t, streamable.ListenerConfig{TLS: selfSigned(t)})
	target := e.target()
	target.TLS = nil // the system's roots
	err := Check(context.Background(), target)
	require.ErrorIs(t, err, ErrTargetDown)
	assert.Contains(t, err.Error(), "certificate signed by unknown authority")
	assert.Zero(t, e.admitted.Load())
}

// The https URL gets 443 by default, the URL's host as the name verified, and http/1.1.
func TestTLSTargetParse(t *testing.T) {
	ep, err := Target{URL: "https://localhost/mcp"}.parse()
	require.NoError(t, err)
	assert.Equal(t, "localhost:443", ep.addr)
	assert.Equal(t, "localhost", ep.tls.ServerName)
	assert.Equal(t, []string{"http/1.1"}, ep.tls.NextProtos)
	ep, err = Target{URL: "http://localhost/mcp"}.parse()
	require.NoError(t, err)
	assert.Nil(t, ep.tls)
}
