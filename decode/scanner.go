package decode

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// scanner is one validating pass over a message. It walks the whole input once, in time
// linear in its length: strings are checked eight bytes at a time, numbers digit by digit,
// and duplicate keys with a bounded comparison per object (see dupkeys.go).
//
// Parse-class failures stop the scan at once (fail). Envelope and params failures are noted
// (note) and the scan goes on, so that a later syntax error still wins: one message always
// yields the same code whatever the order of its keys.
type scanner struct {
	src      []byte
	pos      int
	maxDepth int
	m        *Message
	err      *Error

	// The last string scanned: its content bounds and whether it had escapes.
	strStart, strEnd int
	strEsc           bool
}

// fail records a parse-class error and returns false, so callers can `return s.fail(...)`.
func (s *scanner) fail(msg string) bool {
	s.err = &Error{Code: CodeParseError, Message: msg, Offset: s.pos}
	return false
}

// note records an envelope or params error unless one of equal or higher precedence is held.
func (s *scanner) note(code Code, msg string, offset int) {
	if s.err != nil && s.err.Code.rank() >= code.rank() {
		return
	}
	s.err = &Error{Code: code, Message: msg, Offset: offset}
}

func (s *scanner) ws() {
	src, i := s.src, s.pos
	for i < len(src) {
		switch src[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			s.pos = i
			return
		}
	}
	s.pos = i
}

// value scans any JSON value at s.pos (whitespace already skipped).
func (s *scanner) value(depth int, lvl level) (Type, bool) {
	if s.pos >= len(s.src) {
		return TypeAbsent, s.fail(msgSyntax)
	}
	switch c := s.src[s.pos]; c {
	case '{':
		return TypeObject, s.object(depth+1, lvl)
	case '[':
		return TypeArray, s.array(depth+1, lvl)
	case '"':
		return TypeString, s.str()
	case 't':
		return TypeBool, s.literal("true")
	case 'f':
		return TypeBool, s.literal("false")
	case 'n':
		return TypeNull, s.literal("null")
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			return s.number()
		}
		return TypeAbsent, s.fail(msgSyntax)
	}
}

func (s *scanner) literal(lit string) bool {
	if len(s.src)-s.pos < len(lit) || string(s.src[s.pos:s.pos+len(lit)]) != lit {
		return s.fail(msgSyntax)
	}
	s.pos += len(lit)
	return true
}

func (s *scanner) array(depth int, lvl level) bool {
	if depth > s.maxDepth {
		return s.fail(msgDepth)
	}
	s.pos++
	s.ws()
	if s.pos < len(s.src) && s.src[s.pos] == ']' {
		s.pos++
		return true
	}
	child := lvl.child()
	for {
		if _, ok := s.value(depth, child); !ok {
			return false
		}
		s.ws()
		if s.pos >= len(s.src) {
			return s.fail(msgSyntax)
		}
		switch s.src[s.pos] {
		case ',':
			s.pos++
			s.ws()
		case ']':
			s.pos++
			return true
		default:
			return s.fail(msgSyntax)
		}
	}
}

// object scans an object; members of the envelope, params and _meta are captured into the
// message according to lvl.
func (s *scanner) object(depth int, lvl level) bool {
	if depth > s.maxDepth {
		return s.fail(msgDepth)
	}
	start := s.pos
	s.pos++
	s.ws()
	if s.pos < len(s.src) && s.src[s.pos] == '}' {
		s.pos++
		return true
	}
	mark := len(s.m.keys)
	for {
		if s.pos >= len(s.src) || s.src[s.pos] != '"' {
			return s.fail(msgSyntax)
		}
		if !s.str() {
			return false
		}
		key := s.pushKey()
		s.ws()
		if s.pos >= len(s.src) || s.src[s.pos] != ':' {
			return s.fail(msgSyntax)
		}
		s.pos++
		s.ws()
		f := lvl.field(key)
		if f == fNone && lvl == lvlMeta {
			s.m.metaOther = true
		}
		vstart := s.pos
		typ, ok := s.value(depth, lvl.childFor(f, s.peekObject()))
		if !ok {
			return false
		}
		if f != fNone {
			s.capture(f, vstart, typ)
		}
		s.ws()
		if s.pos >= len(s.src) {
			return s.fail(msgSyntax)
		}
		switch s.src[s.pos] {
		case ',':
			s.pos++
			s.ws()
			continue
		case '}':
			s.pos++
		default:
			return s.fail(msgSyntax)
		}
		break
	}
	if s.duplicateKeys(mark) {
		s.note(lvl.dupCode(), lvl.dupMessage(), start)
	}
	s.m.keys = s.m.keys[:mark]
	return true
}

// peekObject reports whether the value at s.pos is an object.
func (s *scanner) peekObject() bool { return s.pos < len(s.src) && s.src[s.pos] == '{' }

func (s *scanner) number() (Type, bool) {
	src, i := s.src, s.pos
	if src[i] == '-' {
		i++
	}
	digits := i
	switch {
	case i >= len(src):
		s.pos = i
		return TypeAbsent, s.fail(msgSyntax)
	case src[i] == '0':
		i++
	case src[i] >= '1' && src[i] <= '9':
		// Stop one digit past the limit: a 2,000,000-digit literal costs 65 steps.
		for i++; i < len(src) && src[i] >= '0' && src[i] <= '9' && i-digits <= MaxIntegerDigits; i++ {
		}
	default:
		s.pos = i
		return TypeAbsent, s.fail(msgSyntax)
	}
	if i-digits > MaxIntegerDigits {
		s.pos = digits
		return TypeAbsent, s.fail(msgDigits)
	}
	typ := TypeInteger
	if i < len(src) && src[i] == '.' {
		i++
		if i >= len(src) || src[i] < '0' || src[i] > '9' {
			s.pos = i
			return TypeAbsent, s.fail(msgSyntax)
		}
		for i < len(src) && src[i] >= '0' && src[i] <= '9' {
			i++
		}
		typ = TypeNumber
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		if i >= len(src) || src[i] < '0' || src[i] > '9' {
			s.pos = i
			return TypeAbsent, s.fail(msgSyntax)
		}
		for i < len(src) && src[i] >= '0' && src[i] <= '9' {
			i++
		}
		typ = TypeNumber
	}
	s.pos = i
	return typ, true
}

// plainByte marks the bytes that need no closer look inside a string.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// special8 flags (with bit 7 of the byte) the bytes of a little-endian word that need a
// closer look inside a string: a quote, a backslash, a control character or a non-ASCII byte.
// Flags above the lowest one may be spurious (borrows propagate upward), so only the lowest
// flag is used, and it is exact.
func special8(x uint64) uint64 {
	q := x ^ (lsb * '"')
	b := x ^ (lsb * '\\')
	return ((q-lsb)&^q | (b-lsb)&^b | (x-lsb*0x20)&^x | x) & msb
}

// str scans a string at s.pos (a quote) and leaves its content bounds in strStart/strEnd.
func (s *scanner) str() bool {
	src := s.src
	i := s.pos + 1
	s.strStart = i
	s.strEsc = false
	for {
		// Eight bytes at a time: the lowest flagged byte of a word is exactly the first byte
		// that needs a look (see special8), so the scan jumps straight to it.
		for i+16 <= len(src) {
			lo := special8(binary.LittleEndian.Uint64(src[i:]))
			hi := special8(binary.LittleEndian.Uint64(src[i+8:]))
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
		if i+8 <= len(src) {
			if mask := special8(binary.LittleEndian.Uint64(src[i:])); mask != 0 {
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
			s.pos = i
			return s.fail(msgSyntax)
		}
		switch c := src[i]; {
		case c == '"':
			s.strEnd = i
			s.pos = i + 1
			return true
		case c == '\\':
			n, msg := escapeLen(src[i:])
			if n == 0 {
				s.pos = i
				return s.fail(msg)
			}
			s.strEsc = true
			i += n
		case c < 0x20:
			s.pos = i
			return s.fail(msgControl)
		case c < utf8.RuneSelf:
			i++
		default:
			n := utf8Len(src[i:])
			if n == 0 {
				s.pos = i
				return s.fail(msgUTF8)
			}
			i += n
		}
	}
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
