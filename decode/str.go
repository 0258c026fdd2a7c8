package decode

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// plainByte marks the bytes that need no closer look inside a string.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// shortEscape marks the bytes that make a two-byte escape after a backslash.
var shortEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// special8 flags (with bit 7 of the byte) the bytes of a little-endian word that need a
// closer look inside a string: a quote, a backslash, a control character or a non-ASCII byte.
// Flags above the lowest one may be spurious (borrows propagate upward), so only the lowest
// flag is used, and it is exact: a plain byte (0x20-0x7F but the quote and the backslash)
// neither borrows nor sets bit 7 in any term, and a special byte with no borrow coming in
// sets it in one: a quote or a backslash in its term, a control character in the third, and
// a non-ASCII byte in the first (x^0x22 - 1 >= 0x80 for x in 0x80-0x9F) or the third (x-0x20
// >= 0x80 for x >= 0xA0). So the usual &^x masks, and a term for bit 7 itself, are not needed.
// TestSpecial8 checks this against a byte-wise reference.
func special8(x uint64) uint64 {
	q := x ^ (lsb * '"')
	b := x ^ (lsb * '\\')
	return ((q - lsb) | (b - lsb) | (x - lsb*0x20)) & msb
}

// str scans the string whose opening quote is at src[i]. It returns the index just past the
// closing quote and whether the string has escapes, or -1 (the error recorded) when the
// string is invalid.
func (s *scanner) str(i int) (int, bool) {
	src := s.src
	esc := false
	i++
	// Most keys and short values end within their first word: one step, no loop.
	if i >= 0 && i+8 <= len(src) {
		if mask := special8(binary.LittleEndian.Uint64(src[i : i+8 : i+8])); mask != 0 {
			i += bits.TrailingZeros64(mask) >> 3
			goto look
		}
		i += 8
	}
scan:
	// Sixteen bytes a step: the lowest flagged byte of a word is exactly the first byte that
	// needs a look (see special8), so the scan jumps straight to it.
	for i >= 0 && i+16 <= len(src) {
		w := src[i : i+16 : i+16]
		lo := special8(binary.LittleEndian.Uint64(w))
		hi := special8(binary.LittleEndian.Uint64(w[8:]))
		if lo|hi != 0 {
			if lo != 0 {
				i += bits.TrailingZeros64(lo) >> 3
			} else {
				i += 8 + bits.TrailingZeros64(hi)>>3
			}
			goto look
		}
		i += 16
	}
	if i >= 0 && i+8 <= len(src) {
		if mask := special8(binary.LittleEndian.Uint64(src[i : i+8 : i+8])); mask != 0 {
			i += bits.TrailingZeros64(mask) >> 3
			goto look
		}
		i += 8
	}
	for i < len(src) && plainByte[src[i]] {
		i++
	}
look:
	if i >= len(src) {
		return s.fail(msgSyntax, i), false
	}
	switch c := src[i]; {
	case c == '"':
		return i + 1, esc
	case c == '\\':
		if i+1 < len(src) && shortEscape[src[i+1]] { // \n, \" and the like, inline
			esc = true
			i += 2
			break
		}
		n, msg := escapeLen(src[i:])
		if n == 0 {
			return s.fail(msg, i), false
		}
		esc = true
		i += n
	case c < 0x20:
		return s.fail(msgControl, i), false
	case c < utf8.RuneSelf:
		i++
	default:
		n := utf8Len(src[i:])
		if n == 0 {
			return s.fail(msgUTF8, i), false
		}
		i += n
	}
	goto scan
}

// utf8Len returns the length of the valid UTF-8 sequence at the start of b (whose first
// byte is not ASCII), or 0 when it is invalid. Two- and three-byte sequences, most of what
// non-English text holds, are checked inline.
func utf8Len(b []byte) int {
	c := b[0]
	switch {
	case c >= 0xC2 && c <= 0xDF:
		if len(b) >= 2 && b[1]&0xC0 == 0x80 {
			return 2
		}
		return 0
	case c >= 0xE1 && c <= 0xEC || c == 0xEE || c == 0xEF:
		if len(b) >= 3 && b[1]&0xC0 == 0x80 && b[2]&0xC0 == 0x80 {
			return 3
		}
		return 0
	}
	r, n := utf8.DecodeRune(b)
	if r == utf8.RuneError && n == 1 {
		return 0
	}
	return n
}

// escapeLen validates the escape sequence at the start of b (b[0] is a backslash) and
// returns its length, or 0 and the reason it is invalid. A \u escape of a high surrogate must
// be followed by one of a low surrogate; lone surrogates are refused because they cannot be
// represented in UTF-8.
func escapeLen(b []byte) (int, string) {
	if len(b) < 2 {
		return 0, msgSyntax
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2, ""
	case 'u':
		r, ok := hex4(b[2:])
		if !ok {
			return 0, msgEscape
		}
		switch {
		case r >= 0xDC00 && r < 0xE000:
			return 0, msgSurrogate
		case r >= 0xD800 && r < 0xDC00:
			if len(b) < 12 || b[6] != '\\' || b[7] != 'u' {
				return 0, msgSurrogate
			}
			lo, ok := hex4(b[8:])
			if !ok || lo < 0xDC00 || lo >= 0xE000 {
				return 0, msgSurrogate
			}
			return 12, ""
		}
		return 6, ""
	}
	return 0, msgEscape
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
