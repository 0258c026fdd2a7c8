package streamable

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultTLSReloadInterval is how often, at most, the listener looks for a new certificate
// and key in TLSCertFile and TLSKeyFile.
const DefaultTLSReloadInterval = 10 * time.Second

// certReloader serves the certificate read from a pair of files and picks up a new pair
// without a restart: a handshake that finds the last look older than the interval reads
// both files again (one handshake at a time; the others go on with the current
// certificate), and a pair that changed is parsed and takes over. A pair that fails to
// load keeps the current certificate and is logged once, until the files change again.
type certReloader struct {
	certFile, keyFile string
	interval          int64 // nanoseconds
	logger            *slog.Logger
	now               func() int64 // Unix nanoseconds; tests replace it

	cert atomic.Pointer[tls.Certificate]
	next atomic.Int64 // when the files are due for another look

	mu sync.Mutex // one look at a time
	// The bytes of the last pair looked at, loaded or refused: an unchanged pair is not
	// parsed again, and a refused one is not logged again.
	seenCert, seenKey []byte
}

func newCertReloader(certFile, keyFile string, interval time.Duration, logger *slog.Logger) (*certReloader, error) {
	if err := positive(&interval, DefaultTLSReloadInterval, "TLSReloadInterval"); err != nil {
		return nil, err
	}
	if logger == nil {
		logger = slog.Default()
	}
	r := &certReloader{certFile: certFile, keyFile: keyFile, interval: int64(interval), logger: logger,
		now: func() int64 { return time.Now().UnixNano() }}
	certPEM, keyPEM, err := r.read()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidConfig, err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("%w: TLS certificate %s and key %s: %v", ErrInvalidConfig, certFile, keyFile, err)
	}
	r.seenCert, r.seenKey = certPEM, keyPEM
	r.cert.Store(&cert)
	r.next.Store(r.now() + r.interval)
	return r, nil
}

// getCertificate is the listener's tls.Config.GetCertificate.
func (r *certReloader) getCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	if now := r.now(); now >= r.next.Load() && r.mu.TryLock() {
		if now >= r.next.Load() { // not looked at meanwhile by the previous holder
			r.next.Store(now + r.interval)
			r.lookLocked()
		}
		r.mu.Unlock()
	}
	return r.cert.Load(), nil
}

// lookLocked reads the files and takes a changed pair that loads. r.mu must be held.
func (r *certReloader) lookLocked() {
	certPEM, keyPEM, err := r.read()
	if err != nil {
		// Likely mid-rotation (a file replaced by rename): look again at the next interval.
		r.logger.Error("streamable: TLS certificate reload failed; keeping the current certificate", "err", err)
		return
	}
	if bytes.Equal(certPEM, r.seenCert) && bytes.Equal(keyPEM, r.seenKey) {
		return
	}
	r.seenCert, r.seenKey = certPEM, keyPEM
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		r.logger.Error("streamable: TLS certificate reload failed; keeping the current certificate",
			"cert", r.certFile, "key", r.keyFile, "err", err)
		return
	}
	r.cert.Store(&cert)
	attrs := []any{"cert", r.certFile}
	if cert.Leaf != nil {
		attrs = append(attrs, "notAfter", cert.Leaf.NotAfter)
	}
	r.logger.Info("streamable: TLS certificate reloaded", attrs...)
}

func (r *certReloader) read() (certPEM, keyPEM []byte, err error) {
	if certPEM, err = os.ReadFile(r.certFile); err != nil {
		return nil, nil, fmt.Errorf("TLS certificate: %w", err)
	}
	if keyPEM, err = os.ReadFile(r.keyFile); err != nil {
		return nil, nil, fmt.Errorf("TLS key: %w", err)
	}
	return certPEM, keyPEM, nil
}
