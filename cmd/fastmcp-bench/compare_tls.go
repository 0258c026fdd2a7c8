package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

// nameFastmcpTLS is fastmcp on the native listener over TLS, compare --tls's extra server.
const nameFastmcpTLS = "fastmcp-tls"

// compareTLS is compare's --tls: a second fastmcp server, the same binary and flags as the
// plaintext one plus --tls-cert and --tls-key, with a self-signed pair made for the run.
// It is driven in the same interleaved rounds, so the two differ by TLS alone, and the load
// trusts exactly that certificate.
type compareTLS struct {
	on    bool
	trust *tls.Config // the client side: the pair's certificate as the only root
}

func (o *compareTLS) flags(fs *flag.FlagSet) {
	fs.BoolVar(&o.on, "tls", false, "also serve fastmcp over TLS (a self-signed pair made for the run), as "+nameFastmcpTLS+", and report the TLS cost per request beside plaintext")
}

// start writes a fresh self-signed pair into a temporary directory and starts fastmcp serve
// over TLS with it; stop removes the directory.
func (o *compareTLS) start(ctx context.Context, serverCPU int, bin string) (c *child, stop func(), err error) {
	dir, err := os.MkdirTemp("", "fastmcp-bench-tls-")
	if err != nil {
		return nil, nil, err
	}
	stop = func() { _ = os.RemoveAll(dir) }
	certPEM, keyPEM, err := selfSignedPair(time.Now())
	if err != nil {
		stop()
		return nil, nil, err
	}
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, certPEM, 0o600); err != nil {
		stop()
		return nil, nil, err
	}
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		stop()
		return nil, nil, err
	}
	if o.trust, err = trustPEM(certPEM); err != nil {
		stop()
		return nil, nil, err
	}
	c, err = startChild(ctx, nameFastmcpTLS, serverCPU, bin, "serve", "--addr", "127.0.0.1:0", "--fixtures", "demo", "--tasks-store", "off", "--stack", "fasthttp",
		"--pprof", "127.0.0.1:0", "--tls-cert", certFile, "--tls-key", keyFile)
	if err != nil {
		stop()
		return nil, nil, err
	}
	return c, stop, nil
}

// selfSignedPair is a certificate for 127.0.0.1, ::1 and localhost valid for a day from now
// (ECDSA P-256: the key type a TLS terminator would use for speed), signed by itself, and
// its key, as PEM.
func selfSignedPair(now time.Time) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "fastmcp-bench"},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), nil
}

// trustPEM is a client configuration whose only root is the PEM certificate.
func trustPEM(certPEM []byte) (*tls.Config, error) {
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(certPEM) {
		return nil, fmt.Errorf("compare --tls: the generated certificate does not parse")
	}
	return &tls.Config{RootCAs: roots}, nil
}

// printTLSCost prints, for each revision measured both ways, fastmcp over TLS beside
// plaintext from the same rounds: throughput, server CPU and allocations per request. The
// connections are keep-alive, so the handshake is paid once per connection, in the warm-up:
// the figures are the per-request cost of the record layer.
func printTLSCost(w io.Writer, c *comparison) {
	gen := c.Generators[0]
	for _, proto := range c.protocols() {
		plain, over := c.find(nameFastmcp, proto), c.find(nameFastmcpTLS, proto)
		if plain == "" || over == "" {
			continue
		}
		p, t := c.Medians[gen][plain], c.Medians[gen][over]
		if p <= 0 || t <= 0 {
			continue
		}
		line := fmt.Sprintf("TLS cost, %s (medians, same rounds): %.0f req/s over TLS vs %.0f plaintext (%.2f×)", proto, t, p, t/p)
		if pc, tc := c.CPUMedians[plain], c.CPUMedians[over]; pc > 0 && tc > 0 {
			delta := "+" + loadtest.FormatDuration(time.Duration(tc-pc))
			if tc < pc {
				delta = "-" + loadtest.FormatDuration(time.Duration(pc-tc))
			}
			line += fmt.Sprintf("; server CPU/request %s vs %s (%s, %+.0f%%)", fmtDuration(tc), fmtDuration(pc), delta, 100*(tc-pc)/pc)
		}
		if pa, ta := c.AllocMedians[plain], c.AllocMedians[over]; len(c.Allocs[plain]) > 0 && len(c.Allocs[over]) > 0 {
			line += fmt.Sprintf("; allocs/request %.1f vs %.1f, bytes/request %s vs %s", ta, pa,
				fmtBytes(c.AllocBytesMedians[over]), fmtBytes(c.AllocBytesMedians[plain]))
		}
		fmt.Fprintln(w, line)
	}
}
