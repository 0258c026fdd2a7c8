package oauth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fastmcp-go/fastmcp/streamable"
)

// nonces are the resource server's DPoP nonces (RFC 9449 §9): the nonce of a period of
// lifetime is an HMAC of the period's number, so nothing is stored (the memory is bounded
// by construction), replicas with the same key agree, and rotation needs no goroutine. A
// proof may carry the current period's nonce or the previous one's, so a nonce is accepted
// for one to two lifetimes after it is first issued.
type nonces struct {
	key      []byte
	lifetime time.Duration
	// challenge is the 401 use_dpop_nonce answer naming a nonce, made once per period.
	challenge func(nonce string) *streamable.GateResponse

	mu     sync.Mutex // making a period
	period atomic.Pointer[noncePeriod]
}

type noncePeriod struct {
	n                 int64
	current, previous string
	challenge         *streamable.GateResponse
}

func newNonces(key []byte, lifetime time.Duration, challenge func(string) *streamable.GateResponse) *nonces {
	if key == nil {
		key = make([]byte, 32)
		_, _ = rand.Read(key) // never fails (crypto/rand)
	}
	return &nonces{key: key, lifetime: lifetime, challenge: challenge}
}

// at returns the period of now.
func (ns *nonces) at(now time.Time) *noncePeriod {
	n := now.UnixNano() / int64(ns.lifetime)
	if p := ns.period.Load(); p != nil && p.n == n {
		return p
	}
	ns.mu.Lock()
	defer ns.mu.Unlock()
	if p := ns.period.Load(); p != nil && p.n == n {
		return p
	}
	p := &noncePeriod{n: n, current: ns.nonce(n), previous: ns.nonce(n - 1)}
	p.challenge = ns.challenge(p.current)
	ns.period.Store(p)
	return p
}

// accepts reports whether nonce is the current or the previous period's.
func (p *noncePeriod) accepts(nonce string) bool {
	return nonce != "" && (nonce == p.current || nonce == p.previous)
}

// nonce is the nonce of period n: 16 bytes of HMAC-SHA256, base64url (22 characters of
// the NQCHAR set, RFC 9449 §8.1).
func (ns *nonces) nonce(n int64) string {
	mac := hmac.New(sha256.New, ns.key)
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(n))
	mac.Write(b[:])
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:16])
}
