package streamable

import (
	"bytes"
	"crypto/tls"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mustWrite(t testing.TB, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, b, 0o600))
	return p
}

// writePair writes a certificate and its key into dir, replacing any earlier pair.
func writePair(t testing.TB, dir string, certPEM, keyPEM []byte) (certFile, keyFile string) {
	t.Helper()
	return mustWrite(t, dir, "cert.pem", certPEM), mustWrite(t, dir, "key.pem", keyPEM)
}

// syncBuffer is a log sink safe for the handshakes' goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A certificate from files is reloaded without a restart: a handshake looks at the files
// again once TLSReloadInterval has passed since the last look (not before), takes a new
// pair, keeps the current one when the new pair does not load (logged once per change),
// and takes the next good pair.
func TestTLSCertReload(t *testing.T) {
	ca := newTestCA(t)
	dir := t.TempDir()
	certFile, keyFile := writeIssued(t, dir, ca, 100)
	var logs syncBuffer
	const interval = time.Minute
	var clock atomic.Int64 // the reloader's time, moved by the test
	clock.Store(time.Now().UnixNano())
	s := startPrepared(t, newCore(t), ListenerConfig{
		TLSCertFile:       certFile,
		TLSKeyFile:        keyFile,
		TLSReloadInterval: interval,
		Config: Config{
			Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		},
	}, func(s *Server) {
		s.tls.reload.now = clock.Load
		s.tls.reload.next.Store(clock.Load() + int64(interval))
	})
	advance := func() { clock.Add(int64(interval)) }
	serial := func() int64 {
		t.Helper()
		c := dialTLS(t, s, ca.clientTLS())
		defer c.Close()
		return c.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
	}
	require.Equal(t, int64(100), serial())

	writeIssued(t, dir, ca, 101)
	assert.Equal(t, int64(100), serial(), "not looked at before the interval")
	advance()
	assert.Equal(t, int64(101), serial(), "the new pair after the interval")
	assert.Contains(t, logs.String(), "TLS certificate reloaded")

	// A broken pair: a key of another certificate. The current one stays.
	certPEM, _ := pemPair(t, ca, 102)
	_, otherKeyPEM := pemPair(t, ca, 103)
	writePair(t, dir, certPEM, otherKeyPEM)
	advance()
	assert.Equal(t, int64(101), serial(), "a pair that does not load keeps the current one")
	assert.Equal(t, 1, bytes.Count([]byte(logs.String()), []byte("TLS certificate reload failed")))
	advance()
	assert.Equal(t, int64(101), serial())
	assert.Equal(t, 1, bytes.Count([]byte(logs.String()), []byte("TLS certificate reload failed")), "an unchanged bad pair is logged once")

	// A missing file (mid-rotation) keeps the current one too, and is retried.
	require.NoError(t, os.Remove(keyFile))
	advance()
	assert.Equal(t, int64(101), serial())
	assert.Equal(t, 2, bytes.Count([]byte(logs.String()), []byte("TLS certificate reload failed")))

	writeIssued(t, dir, ca, 104)
	advance()
	assert.Equal(t, int64(104), serial(), "the next good pair is taken")
}

// writeIssued writes a new pair from ca with the given serial into dir.
func writeIssued(t testing.TB, dir string, ca *testCA, serial int64) (certFile, keyFile string) {
	t.Helper()
	certPEM, keyPEM := pemPair(t, ca, serial)
	return writePair(t, dir, certPEM, keyPEM)
}

func pemPair(t testing.TB, ca *testCA, serial int64) (certPEM, keyPEM []byte) {
	certPEM, keyPEM, pair := ca.issue(t, serial)
	require.Equal(t, 0, pair.Leaf.SerialNumber.Cmp(big.NewInt(serial)))
	return certPEM, keyPEM
}

// Handshakes racing a rotation (files replaced by rename, as a secret mount does) all
// succeed, each with the old or the new certificate, and the new one is served after.
func TestTLSCertReloadConcurrent(t *testing.T) {
	ca := newTestCA(t)
	dir := t.TempDir()
	certFile, keyFile := writeIssued(t, dir, ca, 200)
	var clock atomic.Int64
	clock.Store(time.Now().UnixNano())
	s := startPrepared(t, newCore(t), ListenerConfig{TLSCertFile: certFile, TLSKeyFile: keyFile, Config: Config{Logger: slog.New(slog.DiscardHandler)}},
		func(s *Server) { s.tls.reload.now = clock.Load })
	serials := make(chan int64, 64)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 10 {
				c, err := tls.Dial("tcp", addrOf(s), ca.clientTLS())
				if !assert.NoError(t, err) {
					return
				}
				serials <- c.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
				_ = c.Close()
			}
		})
	}
	certPEM, keyPEM := pemPair(t, ca, 201)
	replace := func(path string, b []byte) {
		tmp := path + ".new"
		require.NoError(t, os.WriteFile(tmp, b, 0o600))
		require.NoError(t, os.Rename(tmp, path))
	}
	replace(keyFile, keyPEM) // a moment where the pair does not match: kept, logged, retried
	clock.Add(int64(DefaultTLSReloadInterval))
	replace(certFile, certPEM)
	wg.Wait()
	close(serials)
	for serial := range serials {
		assert.Contains(t, []int64{200, 201}, serial)
	}
	clock.Add(int64(DefaultTLSReloadInterval))
	c := dialTLS(t, s, ca.clientTLS())
	assert.Equal(t, int64(201), c.ConnectionState().PeerCertificates[0].SerialNumber.Int64())
}
