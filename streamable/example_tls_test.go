package streamable_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"time"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// Serving HTTPS with health endpoints: a certificate (here made on the spot; in production
// TLSCertFile and TLSKeyFile, reloaded when they change), and ServeHealth for a load
// balancer's probes. /readyz turns 503 the moment Shutdown begins.
func ExampleConfig_tls() {
	cert, roots := selfSigned()
	core, _ := fastmcp.NewServer(fastmcp.Implementation{Name: "example", Version: "1.0.0"}, nil)
	srv, _ := streamable.New(core, streamable.ListenerConfig{
		Addr:        "127.0.0.1:0",
		TLS:         &tls.Config{Certificates: []tls.Certificate{cert}},
		ServeHealth: true,
	})
	_ = srv.Listen()
	served := make(chan error, 1)
	go func() { served <- srv.Serve() }()

	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	base := srv.URL()[:len(srv.URL())-len("/mcp")]
	resp, _ := client.Get(base + streamable.ReadyzPath)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Printf("%s %s %d %s", base[:8], resp.Proto, resp.StatusCode, body) // body: "ready\n"
	client.CloseIdleConnections()

	_ = srv.Shutdown(context.Background())
	<-served
	fmt.Println("ready after shutdown:", srv.Ready())
	// Output:
	// https:// HTTP/1.1 200 ready
	// ready after shutdown: false
}

// selfSigned makes a certificate for 127.0.0.1 and the pool that trusts it.
func selfSigned() (tls.Certificate, *x509.CertPool) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, _ := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	leaf, _ := x509.ParseCertificate(der)
	roots := x509.NewCertPool()
	roots.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, roots
}
