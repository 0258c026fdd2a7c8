package decode

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"slices"
)

// keyEntry is one member key of an object being scanned: its unescaped content, in the
// source or (when it had escapes) in the message's text buffer.
type keyEntry struct {
	start, end uint32
	// fp is a cheap fingerprint (length and edge bytes): equal keys have equal fingerprints,
	// so most pairs are told apart without touching the key bytes. For large objects it is
	// replaced by a seeded hash, since an adversary could make fingerprints collide.
	fp     uint64
	inText bool
}

// pushKey records the key at src[start:end] (esc: it has escapes) for the duplicate check of
// its object.
func (s *scanner) pushKey(start, end int, esc bool) {
	m := s.m
	if esc {
		t := len(m.text)
		m.text = appendUnescaped(m.text, s.src[start:end])
		s.pushText(t)
		return
	}
	// The bytes after an unescaped key (its closing quote at least) are in the source: the
	// fingerprint may read a whole word from its start.
	m.keys = append(m.keys, keyEntry{start: uint32(start), end: uint32(end), fp: fingerprint(s.src[start:end], s.src[start:])})
}

// pushText records the unescaped key held in the text buffer from t to its end.
func (s *scanner) pushText(t int) {
	m := s.m
	k := m.text[t:]
	m.keys = append(m.keys, keyEntry{start: uint32(t), end: uint32(len(m.text)), inText: true, fp: fingerprint(k, k)})
}

// fingerprint hashes key k cheaply from its length and edge bytes; from holds k and the
// bytes after it, so a short key is read as one masked word.
func fingerprint(k, from []byte) uint64 {
	n := len(k)
	switch {
	case n >= 8:
		return binary.LittleEndian.Uint64(k) ^ bits.RotateLeft64(binary.LittleEndian.Uint64(k[n-8:]), 29) ^ uint64(n)<<56
	case len(from) >= 8:
		return binary.LittleEndian.Uint64(from)&(1<<(8*n)-1) ^ uint64(n)<<56
	}
	var fp uint64
	for i, c := range k {
		fp |= uint64(c) << (8 * i)
	}
	return fp ^ uint64(n)<<56
}

func (s *scanner) key(e keyEntry) []byte {
	if e.inText {
		return s.m.text[e.start:e.end]
	}
	return s.src[e.start:e.end]
}

// smallObject is the member count up to which keys are compared pairwise; larger objects are
// sorted by a hash of their keys, keeping the check O(n log n) in the number of members.
const smallObject = 16

var keySeed = maphash.MakeSeed()

// duplicateKeys reports whether the keys pushed since mark (one object's) repeat.
func (s *scanner) duplicateKeys(mark int) bool {
	keys := s.m.keys[mark:]
	if len(keys) < 2 {
		return false
	}
	if len(keys) <= smallObject {
		for i := 1; i < len(keys); i++ {
			for j := 0; j < i; j++ {
				if keys[i].fp == keys[j].fp && bytes.Equal(s.key(keys[i]), s.key(keys[j])) {
					return true
				}
			}
		}
		return false
	}
	for i := range keys {
		keys[i].fp = maphash.Bytes(keySeed, s.key(keys[i]))
	}
	slices.SortFunc(keys, func(a, b keyEntry) int {
		switch {
		case a.fp < b.fp:
			return -1
		case a.fp > b.fp:
			return 1
		}
		return 0
	})
	for i := 1; i < len(keys); i++ {
		for j := i - 1; j >= 0 && keys[j].fp == keys[i].fp; j-- {
			if bytes.Equal(s.key(keys[i]), s.key(keys[j])) {
				return true
			}
		}
	}
	return false
}
