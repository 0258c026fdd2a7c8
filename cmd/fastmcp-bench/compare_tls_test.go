package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

// The pair compare --tls makes verifies for the loopback names under the trust it builds
// and for nothing else.
func TestSelfSignedPair(t *testing.T) {
	now := time.Now()
	certPEM, keyPEM, err := selfSignedPair(now)
	require.NoError(t, err)
	_, err = tls.X509KeyPair(certPEM, keyPEM)
	require.NoError(t, err)
	trust, err := trustPEM(certPEM)
	require.NoError(t, err)
	block, _ := pem.Decode(certPEM)
	cert, err := x509.ParseCertificate(block.Bytes)
	require.NoError(t, err)
	for _, name := range []string{"127.0.0.1", "::1", "localhost"} {
		_, err := cert.Verify(x509.VerifyOptions{Roots: trust.RootCAs, DNSName: name, CurrentTime: now})
		assert.NoError(t, err, name)
	}
	_, err = cert.Verify(x509.VerifyOptions{Roots: trust.RootCAs, DNSName: "example.com", CurrentTime: now})
	assert.Error(t, err)
	_, err = cert.Verify(x509.VerifyOptions{Roots: trust.RootCAs, DNSName: "localhost", CurrentTime: now.Add(25 * time.Hour)})
	assert.Error(t, err, "valid for a day")
}

// The TLS line puts fastmcp over TLS beside plaintext, revision by revision, from the
// medians of the same rounds.
func TestTLSCostLine(t *testing.T) {
	c := &comparison{Metric: "rps", Rounds: 2, Generators: []string{"ours"},
		Samples: map[string]map[string][]float64{}, Medians: map[string]map[string]float64{}}
	for _, s := range []string{nameFastmcp, nameFastmcpTLS} {
		c.addTarget(s, loadtest.Dialect2026)
		c.addTarget(s, loadtest.DialectLegacy)
	}
	for _, r := range []struct{ plain, tls float64 }{{40000, 30000}, {42000, 32000}} {
		c.record("ours", nameFastmcp, r.plain, &loadtest.ThroughputResult{ServerCPU: 20000}, nil)
		c.record("ours", nameFastmcpTLS, r.tls, &loadtest.ThroughputResult{ServerCPU: 25000}, nil)
		c.recordAllocs(nameFastmcp, 2, 200)
		c.recordAllocs(nameFastmcpTLS, 3, 260)
	}
	c.summarize()
	var b strings.Builder
	printTLSCost(&b, c)
	assert.Equal(t, "TLS cost, 2026-07-28 (medians, same rounds): 31000 req/s over TLS vs 41000 plaintext (0.76×); "+
		"server CPU/request 25.0µs vs 20.0µs (+5.00µs, +25%); allocs/request 3.0 vs 2.0, bytes/request 260 B vs 200 B\n", b.String(),
		"the legacy targets have no figures: no line")
}

// TestCompareTLSQuick is a short real run of compare --tls: fastmcp and fastmcp-tls in the
// same rounds, every response checked, and the TLS line printed.
func TestCompareTLSQuick(t *testing.T) {
	bin := build(t)
	js := filepath.Join(t.TempDir(), "c.json")
	code, out, errOut := runBench(t, bin, "compare", "--quick", "--tls", "--dialects", "2026-07-28", "--json", js)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
	c := readReport(t, js).Comparison
	require.NotNil(t, c)
	assert.Equal(t, []string{nameFastmcp, nameFastmcpTLS}, c.Targets)
	for _, target := range c.Targets {
		assert.Positive(t, c.Medians["ours"][target], target)
		assert.Positive(t, c.CPUMedians[target], target)
	}
	assert.Regexp(t, `(?m)^TLS cost, 2026-07-28 \(medians, same rounds\): \d+ req/s over TLS vs \d+ plaintext \(\d\.\d\d×\); server CPU/request `, out)
}
