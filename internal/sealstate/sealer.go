package sealstate

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// Token layout, before base64url encoding:
//
//	version (1) | key id (4) | nonce (12) | AES-256-GCM ciphertext | tag (16)
//
// The version and key id are the additional authenticated data. The
// plaintext is
//
//	expiry, Unix milliseconds, big-endian int64 (8) | request digest (32) |
//	uvarint len(method) | method | uvarint len(principal) | principal | payload
const (
	formatVersion = 1
	headerLen     = 1 + keyIDLen
	keyIDLen      = 4
	nonceLen      = 12
	tagLen        = 16
	overhead      = headerLen + nonceLen + tagLen
	fixedPlain    = 8 + sha256.Size
	minRawLen     = overhead + fixedPlain + 2 // two empty uvarint lengths
)

// HKDF info strings; they separate the encryption key from the key id.
const (
	infoAEAD  = "fastmcp sealstate v1 aes-256-gcm"
	infoKeyID = "fastmcp sealstate v1 key id"
)

var encoding = base64.RawURLEncoding.Strict()

// Binding is what a token is bound to: the request it was issued for and
// who sent it. [Sealer.Open] refuses a token whose Binding differs from the
// retried request's.
type Binding struct {
	// Method is the JSON-RPC method, such as "tools/call".
	Method string
	// Digest identifies the request: see [Digest].
	Digest [32]byte
	// Principal is the authenticated caller, or "" when there is none.
	Principal string
}

// State is what [Sealer.Seal] seals.
type State struct {
	Binding
	// Payload is the handler's own state. It is encrypted, so it may hold
	// data the client must not read.
	Payload []byte
	// TTL overrides the Sealer's TTL for this token when non-zero. It must
	// be between 1ms and MaxTTL.
	TTL time.Duration
}

// Sealer seals and opens MRTR requestState tokens with AES-256-GCM. It is
// safe for concurrent use.
type Sealer struct {
	keys []sealKey // keys[0] seals
	ttl  time.Duration
}

type sealKey struct {
	id   [keyIDLen]byte
	aead cipher.AEAD
}

// New returns a Sealer for cfg. Errors wrap [ErrInvalidConfig].
func New(cfg Config) (*Sealer, error) {
	switch {
	case len(cfg.Keys) == 0:
		return nil, fmt.Errorf("%w: no keys (NewRandom makes a per-process key)", ErrInvalidConfig)
	case len(cfg.Keys) > MaxKeys:
		return nil, fmt.Errorf("%w: %d keys, at most %d are allowed", ErrInvalidConfig, len(cfg.Keys), MaxKeys)
	case cfg.TTL != 0 && (cfg.TTL < time.Millisecond || cfg.TTL > MaxTTL):
		return nil, fmt.Errorf("%w: TTL %v is outside [1ms, %v]", ErrInvalidConfig, cfg.TTL, MaxTTL)
	}
	s := &Sealer{keys: make([]sealKey, 0, len(cfg.Keys)), ttl: cfg.TTL}
	if s.ttl == 0 {
		s.ttl = DefaultTTL
	}
	for i, key := range cfg.Keys {
		if len(key) < MinKeyBytes {
			return nil, fmt.Errorf("%w: key %d is %d bytes, at least %d are required",
				ErrInvalidConfig, i, len(key), MinKeyBytes)
		}
		k, err := deriveKey(key)
		if err != nil {
			return nil, fmt.Errorf("%w: key %d: %w", ErrInvalidConfig, i, err)
		}
		for j, prev := range s.keys {
			if prev.id == k.id {
				return nil, fmt.Errorf("%w: keys %d and %d have the same key id (duplicate key?)",
					ErrInvalidConfig, j, i)
			}
		}
		s.keys = append(s.keys, k)
	}
	return s, nil
}

// NewRandom returns a Sealer with a random key and [DefaultTTL]. Its tokens
// open only in this process: not after a restart, nor on another replica.
func NewRandom() *Sealer {
	key := make([]byte, MinKeyBytes)
	_, _ = rand.Read(key) // never fails: crypto/rand.Read always fills key or crashes
	s, err := New(Config{Keys: [][]byte{key}})
	if err != nil {
		panic(err) // unreachable: the config is valid
	}
	return s
}

func deriveKey(secret []byte) (sealKey, error) {
	var k sealKey
	aeadKey, err := hkdf.Key(sha256.New, secret, nil, infoAEAD, 32)
	if err != nil {
		return k, err
	}
	id, err := hkdf.Key(sha256.New, secret, nil, infoKeyID, keyIDLen)
	if err != nil {
		return k, err
	}
	copy(k.id[:], id)
	block, err := aes.NewCipher(aeadKey)
	if err != nil {
		return k, err
	}
	if k.aead, err = cipher.NewGCMWithRandomNonce(block); err != nil {
		return k, err
	}
	return k, nil
}

// TTL returns the lifetime of tokens sealed without a State.TTL.
func (s *Sealer) TTL() time.Duration { return s.ttl }

// Seal encrypts and authenticates st with the first key and appends the
// token, unpadded base64url (a JSON string that needs no escaping), to dst.
// The token expires at now plus st.TTL, or plus the Sealer's TTL if st.TTL is
// zero. now is a parameter so that the caller may use a coarse clock and
// tests may fix time.
//
// Seal returns an error wrapping [ErrInvalidTTL] or [ErrTooLarge], and then
// dst unchanged. If dst has room for the token plus its binary form
// (about 1.75 times the token), Seal does not allocate.
func (s *Sealer) Seal(dst []byte, st State, now time.Time) ([]byte, error) {
	ttl := st.TTL
	switch {
	case ttl == 0:
		ttl = s.ttl
	case ttl < time.Millisecond || ttl > MaxTTL:
		return dst, fmt.Errorf("%w: %v is outside [1ms, %v]", ErrInvalidTTL, ttl, MaxTTL)
	}
	plainLen := fixedPlain +
		uvarintLen(len(st.Method)) + len(st.Method) +
		uvarintLen(len(st.Principal)) + len(st.Principal) +
		len(st.Payload)
	rawLen := overhead + plainLen
	encLen := encoding.EncodedLen(rawLen)
	if encLen > MaxTokenBytes {
		return dst, fmt.Errorf("%w: %d bytes encoded, the limit is %d", ErrTooLarge, encLen, MaxTokenBytes)
	}

	// Lay out dst as | token (encLen) | raw token (rawLen) | and drop the
	// raw part after encoding, so no scratch buffer is needed.
	n0 := len(dst)
	buf := slices.Grow(dst, encLen+rawLen)[:n0+encLen+rawLen]
	raw := buf[n0+encLen:]
	k := &s.keys[0]
	raw[0] = formatVersion
	copy(raw[1:headerLen], k.id[:])

	p := raw[headerLen : headerLen+plainLen]
	binary.BigEndian.PutUint64(p, uint64(now.Add(ttl).UnixMilli()))
	p = p[8:]
	p = p[copy(p, st.Digest[:]):]
	p = p[binary.PutUvarint(p, uint64(len(st.Method))):]
	p = p[copy(p, st.Method):]
	p = p[binary.PutUvarint(p, uint64(len(st.Principal))):]
	p = p[copy(p, st.Principal):]
	copy(p, st.Payload)

	// The AEAD writes nonce, ciphertext and tag after the header, moving
	// the plaintext out of the way first.
	k.aead.Seal(raw[:headerLen], nil, raw[headerLen:headerLen+plainLen], raw[:headerLen])
	encoding.Encode(buf[n0:n0+encLen], raw)
	return buf[:n0+encLen], nil
}

// Open authenticates and decrypts token and returns the payload sealed in
// it, in memory the caller owns. It refuses the token unless it was sealed by
// one of the keys, has not expired at now (a token sealed at t with lifetime
// d is accepted while now < t+d, at millisecond resolution), and was sealed
// for exactly want.
//
// Errors wrap [ErrTooLarge], [ErrMalformed], [ErrTampered], [ErrExpired] or
// [ErrMismatch], checked in that order. Open allocates one buffer.
func (s *Sealer) Open(token []byte, want Binding, now time.Time) ([]byte, error) {
	if len(token) > MaxTokenBytes {
		return nil, errOpenTooLarge
	}
	if len(token) < encoding.EncodedLen(minRawLen) {
		return nil, errShort
	}
	// The strict decoder rejects every byte outside the alphabet and
	// non-zero trailing bits, but skips '\r' and '\n'; refuse those too, so
	// that one sealed token has exactly one spelling.
	if bytes.IndexByte(token, '\n') >= 0 || bytes.IndexByte(token, '\r') >= 0 {
		return nil, errAlphabet
	}
	rawCap := encoding.DecodedLen(len(token))
	// raw and the plaintext get separate halves of one allocation: the
	// AEAD would allocate to decrypt in place.
	buf := make([]byte, 2*rawCap)
	n, err := encoding.Decode(buf[:rawCap], token)
	if err != nil {
		return nil, errAlphabet
	}
	raw := buf[:n]
	if raw[0] != formatVersion {
		return nil, errVersion
	}
	k := s.key(raw[1:headerLen])
	if k == nil {
		return nil, errUnknownKey
	}
	plain, err := k.aead.Open(buf[rawCap:rawCap], nil, raw[headerLen:], raw[:headerLen])
	if err != nil {
		return nil, errAuth
	}
	return check(plain, want, now)
}

// check parses an authentic plaintext and compares it with want.
func check(p []byte, want Binding, now time.Time) ([]byte, error) {
	if len(p) < fixedPlain {
		return nil, errPlaintext
	}
	expiry := int64(binary.BigEndian.Uint64(p))
	digest := p[8:fixedPlain]
	method, p, ok := lengthPrefixed(p[fixedPlain:])
	if !ok {
		return nil, errPlaintext
	}
	principal, payload, ok := lengthPrefixed(p)
	if !ok {
		return nil, errPlaintext
	}
	switch {
	case now.UnixMilli() >= expiry:
		return nil, ErrExpired
	case string(method) != want.Method:
		return nil, errMismatchMethod
	case [32]byte(digest) != want.Digest:
		return nil, errMismatchDigest
	case string(principal) != want.Principal:
		return nil, errMismatchPrinc
	}
	return payload, nil
}

func lengthPrefixed(p []byte) (field, rest []byte, ok bool) {
	n, w := binary.Uvarint(p)
	if w <= 0 || n > uint64(len(p)-w) {
		return nil, nil, false
	}
	end := w + int(n)
	return p[w:end], p[end:], true
}

func (s *Sealer) key(id []byte) *sealKey {
	for i := range s.keys {
		if string(s.keys[i].id[:]) == string(id) {
			return &s.keys[i]
		}
	}
	return nil
}

func uvarintLen(n int) int {
	l := 1
	for ; n >= 0x80; n >>= 7 {
		l++
	}
	return l
}

// String describes the Sealer without revealing key material, which
// printing the struct with %v would otherwise do.
func (s *Sealer) String() string {
	return "sealstate.Sealer{keys: " + strconv.Itoa(len(s.keys)) + ", ttl: " + s.ttl.String() + "}"
}

// GoString is String, so that %#v does not reveal key material either.
func (s *Sealer) GoString() string { return s.String() }
