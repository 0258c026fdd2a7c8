package fastmcp

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sessionServer(t *testing.T, key []byte) *Server {
	t.Helper()
	s, err := NewServer(Implementation{Name: "t", Version: "1"}, &Config{StateKey: key})
	require.NoError(t, err)
	return s
}

// A session id carries the handshake's state, opens on every server sharing the key, and
// only for the principal it was sealed for, until its TTL.
func TestSessionIDSealed(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	a, b, other := sessionServer(t, key), sessionServer(t, key), sessionServer(t, nil)
	now := time.UnixMilli(1_800_000_000_000)
	for _, s := range []*Server{a, b, other} {
		s.now = func() time.Time { return now }
	}
	st := ConnState{Dialect: Legacy20251125, Capabilities: []byte(`{"elicitation":{}}`), LogLevel: LogDebug}
	id, err := a.sealSession(&st, "alice", time.Minute)
	require.NoError(t, err)
	for _, c := range id {
		require.True(t, c >= 0x21 && c <= 0x7e, "visible ASCII only: %q", c)
	}

	got, expiry, ok := b.openSession(id, "alice")
	require.True(t, ok, "another replica with the key opens it")
	assert.Equal(t, Legacy20251125, got.Dialect)
	assert.Equal(t, `{"elicitation":{}}`, string(got.Capabilities))
	assert.Equal(t, LogDebug, got.LogLevel)
	assert.Equal(t, now.Add(time.Minute), expiry)

	_, _, ok = b.openSession(id, "mallory")
	assert.False(t, ok, "bound to the principal")
	_, _, ok = other.openSession(id, "alice")
	assert.False(t, ok, "another key")
	tampered := append([]byte(nil), id...)
	tampered[len(tampered)-3] ^= 1
	_, _, ok = b.openSession(tampered, "alice")
	assert.False(t, ok, "tampered")
	_, _, ok = b.openSession([]byte("not-a-session"), "alice")
	assert.False(t, ok)

	// The TTL: valid until its last millisecond, refused from then on.
	now = now.Add(time.Minute - time.Millisecond)
	_, _, ok = b.openSession(id, "alice")
	assert.True(t, ok)
	now = now.Add(time.Millisecond)
	_, _, ok = b.openSession(id, "alice")
	assert.False(t, ok, "expired")

	_, err = a.sealSession(&st, "", MaxSessionTTL+time.Millisecond)
	require.ErrorIs(t, err, ErrInvalidConfig)
}

// A requestState never opens as a session id, nor the reverse: the bindings differ.
func TestSessionIDIsNotRequestState(t *testing.T) {
	s := sessionServer(t, nil)
	st := ConnState{Dialect: Legacy20251125}
	id, err := s.sealSession(&st, "", time.Minute)
	require.NoError(t, err)
	_, err = s.sealer.Load().Open(id, s.binding(t.Context(), MethodToolsCall, "x", nil), s.now())
	require.Error(t, err)
}
