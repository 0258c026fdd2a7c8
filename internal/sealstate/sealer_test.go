package sealstate

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	testKey   = bytes.Repeat([]byte{0x42}, 32)
	otherKey  = bytes.Repeat([]byte{0x17}, 32)
	testNow   = time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	testState = State{
		Binding: Binding{
			Method:    "tools/call",
			Digest:    Digest("deploy", []byte(`{"env":"prod"}`)),
			Principal: "user:alice",
		},
		Payload: []byte(`{"step":2}`),
	}
)

func newTestSealer(t testing.TB, keys ...[]byte) *Sealer {
	t.Helper()
	if len(keys) == 0 {
		keys = [][]byte{testKey}
	}
	s, err := New(Config{Keys: keys})
	require.NoError(t, err)
	return s
}

func seal(t testing.TB, s *Sealer, st State, now time.Time) []byte {
	t.Helper()
	tok, err := s.Seal(nil, st, now)
	require.NoError(t, err)
	return tok
}

func TestNewConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		msg  string // "" means valid
	}{
		{"one key", Config{Keys: [][]byte{testKey}}, ""},
		{"long key", Config{Keys: [][]byte{bytes.Repeat([]byte{1}, 64)}}, ""},
		{"max keys", Config{Keys: distinctKeys(MaxKeys)}, ""},
		{"max ttl", Config{Keys: [][]byte{testKey}, TTL: MaxTTL}, ""},
		{"no keys", Config{}, "no keys"},
		{"short key", Config{Keys: [][]byte{testKey, make([]byte, 31)}}, "key 1 is 31 bytes, at least 32"},
		{"too many keys", Config{Keys: distinctKeys(MaxKeys + 1)}, "9 keys, at most 8"},
		{"duplicate", Config{Keys: [][]byte{testKey, otherKey, testKey}}, "keys 0 and 2"},
		{"negative ttl", Config{Keys: [][]byte{testKey}, TTL: -time.Second}, "TTL -1s is outside [1ms, 15m0s]"},
		{"ttl below 1ms", Config{Keys: [][]byte{testKey}, TTL: time.Millisecond - 1}, "TTL 999.999µs"},
		{"min ttl", Config{Keys: [][]byte{testKey}, TTL: time.Millisecond}, ""},
		{"ttl above max", Config{Keys: [][]byte{testKey}, TTL: MaxTTL + time.Millisecond}, "TTL 15m0.001s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(tc.cfg)
			if tc.msg == "" {
				require.NoError(t, err)
				require.NotNil(t, s)
				return
			}
			require.ErrorIs(t, err, ErrInvalidConfig)
			assert.Nil(t, s)
			assert.Contains(t, err.Error(), tc.msg)
			assert.True(t, strings.HasPrefix(err.Error(), "sealstate: invalid config: "), err.Error())
		})
	}
}

func distinctKeys(n int) [][]byte {
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = bytes.Repeat([]byte{byte(i + 1)}, MinKeyBytes)
	}
	return keys
}

func TestTTLDefault(t *testing.T) {
	assert.Equal(t, DefaultTTL, newTestSealer(t).TTL())
	assert.Equal(t, DefaultTTL, NewRandom().TTL())
	s, err := New(Config{Keys: [][]byte{testKey}, TTL: time.Minute})
	require.NoError(t, err)
	assert.Equal(t, time.Minute, s.TTL())
}

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name  string
		state State
	}{
		{"typical", testState},
		{"empty everything", State{}},
		{"no principal", State{Binding: Binding{Method: "prompts/get"}, Payload: []byte("x")}},
		{"binary payload", State{Binding: Binding{Method: "resources/read"}, Payload: []byte{0, 1, 2, 255}}},
		{"long fields", State{
			Binding: Binding{Method: strings.Repeat("m", 300), Principal: strings.Repeat("p", 200)},
			Payload: bytes.Repeat([]byte("z"), 5000),
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestSealer(t)
			tok := seal(t, s, tc.state, testNow)
			got, err := s.Open(tok, tc.state.Binding, testNow)
			require.NoError(t, err)
			assert.Equal(t, len(tc.state.Payload), len(got))
			assert.True(t, bytes.Equal(tc.state.Payload, got))
		})
	}
}

func TestSealAppends(t *testing.T) {
	s := newTestSealer(t)
	out, err := s.Seal([]byte(`"requestState":"`), testState, testNow)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(out, []byte(`"requestState":"`)))
	tok := out[len(`"requestState":"`):]
	for _, c := range tok {
		require.True(t, 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_',
			"byte %q is not base64url", c)
	}
	_, err = s.Open(tok, testState.Binding, testNow)
	require.NoError(t, err)
}

func TestSealIsRandomized(t *testing.T) {
	s := newTestSealer(t)
	a := seal(t, s, testState, testNow)
	b := seal(t, s, testState, testNow)
	assert.NotEqual(t, a, b, "two seals of the same state must differ (random nonce)")
	assert.NotContains(t, string(a), "alice", "the token must not show the principal")
}

func TestOpenPayloadIsOwned(t *testing.T) {
	s := newTestSealer(t)
	tok := seal(t, s, testState, testNow)
	got, err := s.Open(tok, testState.Binding, testNow)
	require.NoError(t, err)
	for i := range tok {
		tok[i] = 'A'
	}
	assert.Equal(t, testState.Payload, got)
}

func TestOpenMismatch(t *testing.T) {
	s := newTestSealer(t)
	tok := seal(t, s, testState, testNow)
	good := testState.Binding
	tests := []struct {
		name   string
		modify func(b *Binding)
		detail string
	}{
		{"method", func(b *Binding) { b.Method = "prompts/get" }, "method"},
		{"method prefix", func(b *Binding) { b.Method = "tools/cal" }, "method"},
		{"other arguments", func(b *Binding) { b.Digest = Digest("deploy", []byte(`{"env":"dev"}`)) }, "request digest"},
		{"other tool", func(b *Binding) { b.Digest = Digest("deploy2", []byte(`{"env":"prod"}`)) }, "request digest"},
		{"one digest bit", func(b *Binding) { b.Digest[31] ^= 1 }, "request digest"},
		{"principal", func(b *Binding) { b.Principal = "user:mallory" }, "principal"},
		{"no principal", func(b *Binding) { b.Principal = "" }, "principal"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := good
			tc.modify(&want)
			got, err := s.Open(tok, want, testNow)
			require.ErrorIs(t, err, ErrMismatch)
			assert.Nil(t, got)
			assert.Equal(t, "sealstate: token does not match the request: "+tc.detail, err.Error())
		})
	}
}

func TestDigestFraming(t *testing.T) {
	// Moving bytes between identity and arguments changes the digest.
	assert.NotEqual(t, Digest("ab", []byte("c")), Digest("a", []byte("bc")))
	assert.NotEqual(t, Digest("", nil), Digest("x", nil))
	assert.Equal(t, Digest("deploy", []byte(`{}`)), Digest("deploy", []byte(`{}`)))
}

func TestOpenTamperEveryByte(t *testing.T) {
	s := newTestSealer(t)
	tok := seal(t, s, testState, testNow)
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for i := range tok {
		for _, c := range []byte(alphabet) {
			if c == tok[i] {
				continue
			}
			bad := bytes.Clone(tok)
			bad[i] = c
			got, err := s.Open(bad, testState.Binding, testNow)
			require.Error(t, err, "byte %d changed to %q was accepted", i, c)
			require.Nil(t, got)
			// Byte 0 carries the version, bytes 1-7 the key id.
			if i >= 8 {
				require.ErrorIs(t, err, ErrTampered, "byte %d", i)
			}
		}
	}
}

func TestOpenMalformed(t *testing.T) {
	s := newTestSealer(t)
	tok := seal(t, s, testState, testNow)
	tests := []struct {
		name  string
		token []byte
		want  error
	}{
		{"empty", nil, ErrMalformed},
		{"short", tok[:40], ErrMalformed},
		{"truncated by four", tok[:len(tok)-4], ErrTampered},
		{"extended", append(bytes.Clone(tok), "AAAA"...), ErrTampered},
		{"impossible length", append(bytes.Clone(tok), "AAAAA"...), ErrMalformed},
		{"padding", append(bytes.Clone(tok), '='), ErrMalformed},
		{"newline inside", insert(tok, 10, '\n'), ErrMalformed},
		{"carriage return", insert(tok, 10, '\r'), ErrMalformed},
		{"space", insert(tok, 10, ' '), ErrMalformed},
		{"std alphabet", []byte(strings.NewReplacer("-", "+", "_", "/").Replace(string(tok) + "-_")), ErrMalformed},
		{"quoted", []byte(`"` + string(tok) + `"`), ErrMalformed},
		{"version 2", reencode(t, tok, func(raw []byte) { raw[0] = 2 }), ErrMalformed},
		{"unknown key id", reencode(t, tok, func(raw []byte) { raw[1] ^= 0xff }), ErrTampered},
		{"trailing bits", flipTrailingBits(t, tok), ErrMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Open(tc.token, testState.Binding, testNow)
			require.ErrorIs(t, err, tc.want)
			assert.Nil(t, got)
		})
	}
}

func insert(tok []byte, at int, c byte) []byte {
	out := append(bytes.Clone(tok[:at]), c)
	return append(out, tok[at:]...)
}

// reencode decodes tok, lets change modify the raw bytes and encodes again.
func reencode(t *testing.T, tok []byte, change func(raw []byte)) []byte {
	t.Helper()
	raw, err := encoding.DecodeString(string(tok))
	require.NoError(t, err)
	change(raw)
	return []byte(encoding.EncodeToString(raw))
}

// flipTrailingBits returns tok with the unused low bits of its last
// character set, if the length leaves any; base64 decoders that are not
// strict would decode it to the same bytes.
func flipTrailingBits(t *testing.T, tok []byte) []byte {
	t.Helper()
	// Pad the raw token to a length whose encoding has unused bits.
	s := newTestSealer(t)
	for extra := range 3 {
		st := testState
		st.Payload = append(bytes.Clone(st.Payload), bytes.Repeat([]byte{'x'}, extra)...)
		tok = seal(t, s, st, testNow)
		if len(tok)%4 != 0 {
			break
		}
	}
	require.NotZero(t, len(tok)%4)
	bad := bytes.Clone(tok)
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	v := strings.IndexByte(alphabet, bad[len(bad)-1])
	bad[len(bad)-1] = alphabet[v|1]
	require.NotEqual(t, tok, bad)
	return bad
}

func TestOpenExpiry(t *testing.T) {
	s := newTestSealer(t)
	tok := seal(t, s, testState, testNow)
	expiry := testNow.Add(DefaultTTL)
	tests := []struct {
		name string
		now  time.Time
		want error
	}{
		{"at seal time", testNow, nil},
		{"before seal time", testNow.Add(-time.Hour), nil},
		{"1ms before expiry", expiry.Add(-time.Millisecond), nil},
		{"1µs before expiry", expiry.Add(-time.Microsecond), nil},
		{"at expiry", expiry, ErrExpired},
		{"after expiry", expiry.Add(time.Hour), ErrExpired},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Open(tok, testState.Binding, tc.now)
			if tc.want == nil {
				require.NoError(t, err)
				assert.Equal(t, testState.Payload, got)
				return
			}
			require.ErrorIs(t, err, tc.want)
			assert.Nil(t, got)
		})
	}
}

func TestStateTTL(t *testing.T) {
	s := newTestSealer(t)
	st := testState
	st.TTL = 10 * time.Second
	tok := seal(t, s, st, testNow)
	_, err := s.Open(tok, st.Binding, testNow.Add(10*time.Second-time.Millisecond))
	require.NoError(t, err)
	_, err = s.Open(tok, st.Binding, testNow.Add(10*time.Second))
	require.ErrorIs(t, err, ErrExpired)

	st.TTL = MaxTTL
	tok = seal(t, s, st, testNow)
	_, err = s.Open(tok, st.Binding, testNow.Add(MaxTTL-time.Millisecond))
	require.NoError(t, err)

	st.TTL = time.Millisecond
	tok = seal(t, s, st, testNow)
	_, err = s.Open(tok, st.Binding, testNow)
	require.NoError(t, err)

	for _, ttl := range []time.Duration{-time.Second, 1, time.Millisecond - 1, MaxTTL + time.Millisecond} {
		st.TTL = ttl
		dst := []byte("keep")
		out, err := s.Seal(dst, st, testNow)
		require.ErrorIs(t, err, ErrInvalidTTL)
		assert.Equal(t, []byte("keep"), out)
	}
}

func TestConfigTTL(t *testing.T) {
	s, err := New(Config{Keys: [][]byte{testKey}, TTL: time.Minute})
	require.NoError(t, err)
	tok := seal(t, s, testState, testNow)
	_, err = s.Open(tok, testState.Binding, testNow.Add(time.Minute-time.Millisecond))
	require.NoError(t, err)
	_, err = s.Open(tok, testState.Binding, testNow.Add(time.Minute))
	require.ErrorIs(t, err, ErrExpired)
}

func TestForeignKey(t *testing.T) {
	a := newTestSealer(t, testKey)
	b := newTestSealer(t, otherKey)
	tok := seal(t, a, testState, testNow)
	got, err := b.Open(tok, testState.Binding, testNow)
	require.ErrorIs(t, err, ErrTampered)
	assert.Nil(t, got)
	assert.Contains(t, err.Error(), "unknown key id")

	// A random per-process key opens only its own tokens.
	r := NewRandom()
	_, err = r.Open(tok, testState.Binding, testNow)
	require.ErrorIs(t, err, ErrTampered)
	_, err = a.Open(seal(t, r, testState, testNow), testState.Binding, testNow)
	require.ErrorIs(t, err, ErrTampered)
}

// TestForgedKeyID: a token whose key id matches but whose ciphertext was
// made with another key fails authentication.
func TestForgedKeyID(t *testing.T) {
	a := newTestSealer(t, testKey)
	b := newTestSealer(t, otherKey)
	tok := reencode(t, seal(t, b, testState, testNow), func(raw []byte) {
		copy(raw[1:headerLen], a.keys[0].id[:])
	})
	_, err := a.Open(tok, testState.Binding, testNow)
	require.ErrorIs(t, err, ErrTampered)
	assert.Contains(t, err.Error(), "authentication failed")
}

func TestKeyRotation(t *testing.T) {
	old := newTestSealer(t, testKey)
	rotated := newTestSealer(t, otherKey, testKey)
	retired := newTestSealer(t, otherKey)

	oldTok := seal(t, old, testState, testNow)
	newTok := seal(t, rotated, testState, testNow)

	_, err := rotated.Open(oldTok, testState.Binding, testNow)
	require.NoError(t, err, "old tokens open during rotation")
	_, err = rotated.Open(newTok, testState.Binding, testNow)
	require.NoError(t, err)
	_, err = old.Open(newTok, testState.Binding, testNow)
	require.ErrorIs(t, err, ErrTampered, "the new key seals")
	_, err = retired.Open(oldTok, testState.Binding, testNow)
	require.ErrorIs(t, err, ErrTampered, "a dropped key no longer opens")
	_, err = retired.Open(newTok, testState.Binding, testNow)
	require.NoError(t, err)
}

func TestOversize(t *testing.T) {
	s := newTestSealer(t)
	// Find the largest payload that fits, from the layout.
	st := testState
	plain := fixedPlain + 1 + len(st.Method) + 1 + len(st.Principal)
	maxRaw := MaxTokenBytes / 4 * 3 // 16 KiB is a multiple of 4
	st.Payload = make([]byte, maxRaw-overhead-plain)
	tok := seal(t, s, st, testNow)
	assert.Len(t, tok, MaxTokenBytes)
	got, err := s.Open(tok, st.Binding, testNow)
	require.NoError(t, err)
	assert.Len(t, got, len(st.Payload))

	st.Payload = append(st.Payload, 0)
	out, err := s.Seal([]byte("keep"), st, testNow)
	require.ErrorIs(t, err, ErrTooLarge)
	assert.Equal(t, []byte("keep"), out)
	assert.Contains(t, err.Error(), "16386 bytes encoded, the limit is 16384")

	big := bytes.Repeat([]byte("A"), MaxTokenBytes+1)
	_, err = s.Open(big, st.Binding, testNow)
	require.ErrorIs(t, err, ErrTooLarge)
}

func TestErrorsAreDistinct(t *testing.T) {
	all := []error{ErrInvalidConfig, ErrInvalidTTL, ErrTooLarge, ErrMalformed, ErrTampered, ErrExpired, ErrMismatch}
	for i, a := range all {
		assert.True(t, strings.HasPrefix(a.Error(), "sealstate: "))
		for j, b := range all {
			assert.Equal(t, i == j, a == b)
		}
	}
}

func TestSealerDoesNotPrintKeys(t *testing.T) {
	s := newTestSealer(t, testKey, otherKey)
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		assert.Equal(t, "sealstate.Sealer{keys: 2, ttl: 5m0s}", fmt.Sprintf(verb, s))
	}
}
