package sealstate

import (
	"crypto/sha256"
	"encoding/binary"
)

// Digest returns the SHA-256 digest that binds a token to one request:
// identity is the tool or prompt name or the resource URI, canonicalArgs the
// canonical encoding of the request's arguments (with _meta, requestState and
// inputResponses removed; canonicalization is the caller's job). The identity
// is length-prefixed, so no two (identity, args) pairs share an input.
func Digest(identity string, canonicalArgs []byte) [32]byte {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	h.Write(n[:binary.PutUvarint(n[:], uint64(len(identity)))])
	h.Write([]byte(identity))
	h.Write(canonicalArgs)
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}
