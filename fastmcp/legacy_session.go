package fastmcp

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/fastmcp-go/fastmcp/internal/sealstate"
)

// Initialize-era HTTP sessions whose id is itself sealed state: what the handshake
// negotiated, sealed with the Server's requestState sealer (so every replica sharing
// Config.StateKey opens it) under a binding no requestState can have, to the principal
// that initialized. No replica keeps a session table.

// MaxSessionTTL is the longest lifetime of a sealed session id: the sealer's bound.
const MaxSessionTTL = sealstate.MaxTTL

// sessionMethod binds session ids: no JSON-RPC method has this name, so a session id never
// opens as a requestState, nor a requestState as a session id.
const sessionMethod = "mcp-session-id"

// The plaintext payload of a session id: format | dialect | log level | expiry (Unix
// milliseconds, big-endian) | nonce | capabilities. The sealer checks the expiry too; the
// copy here is what a transport reads (a stream ends at it, a tombstone lasts until it).
const (
	sessionFormat   = 1
	sessionNonceLen = 16
	sessionFixed    = 3 + 8 + sessionNonceLen
)

// sealSession returns the session id that carries st (its dialect, capabilities and log
// level) for principal, valid for ttl (at most MaxSessionTTL).
func (s *Server) sealSession(st *ConnState, principal string, ttl time.Duration) ([]byte, error) {
	if ttl <= 0 || ttl > MaxSessionTTL {
		return nil, fmt.Errorf("%w: session TTL %v is outside (0, %v]", ErrInvalidConfig, ttl, MaxSessionTTL)
	}
	p := make([]byte, sessionFixed, sessionFixed+len(st.Capabilities))
	now := s.now()
	p[0], p[1], p[2] = sessionFormat, byte(st.Dialect), byte(st.LogLevel)
	binary.BigEndian.PutUint64(p[3:], uint64(now.Add(ttl).UnixMilli()))
	_, _ = rand.Read(p[11:sessionFixed]) // two sessions of one client differ
	p = append(p, st.Capabilities...)
	return s.sealer.Load().Seal(nil, sealstate.State{
		Binding: sealstate.Binding{Method: sessionMethod, Principal: principal},
		Payload: p,
		TTL:     ttl,
	}, now)
}

// openSession returns the state a session id carries and its expiry, and false when it is not one this
// server's keys sealed for principal, or has expired: either way the client must initialize
// again.
func (s *Server) openSession(id []byte, principal string) (ConnState, time.Time, bool) {
	p, err := s.sealer.Load().Open(id, sealstate.Binding{Method: sessionMethod, Principal: principal}, s.now())
	if err != nil || len(p) < sessionFixed || p[0] != sessionFormat {
		return ConnState{}, time.Time{}, false
	}
	d, level := Dialect(p[1]), LogLevel(int8(p[2]))
	if !d.Legacy() || !s.serves(d) || level < LogOff || int(level) >= len(logLevelNames) {
		return ConnState{}, time.Time{}, false
	}
	expiry := time.UnixMilli(int64(binary.BigEndian.Uint64(p[3:])))
	st := ConnState{Dialect: d, LogLevel: level}
	if caps := p[sessionFixed:]; len(caps) > 0 {
		st.Capabilities = caps
	}
	return st, expiry, true
}
