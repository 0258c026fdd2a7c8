package decode

import (
	"strconv"
	"unicode/utf8"
	"unsafe"
)

const hexDigits = "0123456789abcdef"

// needsEscape marks the ASCII bytes a JSON string cannot carry raw.
var needsEscape = func() (t [utf8.RuneSelf]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// AppendString appends s to dst as a JSON string literal, quotes included. Control
// characters, quotes and backslashes are escaped; U+2028 and U+2029 are always escaped (they
// end lines in JavaScript); invalid UTF-8 becomes \ufffd. With asciiOnly every non-ASCII
// character is written as \uXXXX (a surrogate pair beyond the BMP), so the output is 7-bit
// clean whatever the reader's encoding.
func AppendString(dst []byte, s string, asciiOnly bool) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if !needsEscape[c] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = appendEscapedByte(dst, c)
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		invalid := r == utf8.RuneError && n == 1
		if !asciiOnly && !invalid && r != '\u2028' && r != '\u2029' {
			i += n
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = appendRuneEscape(dst, r)
		i += n
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendStringBytes is [AppendString] for a byte slice, without copying it.
func AppendStringBytes(dst, b []byte, asciiOnly bool) []byte {
	return AppendString(dst, unsafe.String(unsafe.SliceData(b), len(b)), asciiOnly)
}

func appendEscapedByte(dst []byte, c byte) []byte {
	switch c {
	case '"':
		return append(dst, '\\', '"')
	case '\\':
		return append(dst, '\\', '\\')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}

// appendRuneEscape writes r as \uXXXX, or as a surrogate pair beyond the BMP.
func appendRuneEscape(dst []byte, r rune) []byte {
	if r >= 0x10000 {
		r -= 0x10000
		dst = appendU4(dst, 0xD800+(r>>10))
		return appendU4(dst, 0xDC00+(r&0x3FF))
	}
	return appendU4(dst, r)
}

func appendU4(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u', hexDigits[r>>12&0xF], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
}

// AppendASCII appends the valid JSON text src to dst with every non-ASCII character (which
// in valid JSON can only stand inside a string) replaced by its \uXXXX escape, and invalid
// UTF-8 by \ufffd. It lets a transport that must emit 7-bit output (stdio) use any encoder.
func AppendASCII(dst, src []byte) []byte {
	start := 0
	for i := 0; i < len(src); {
		if src[i] < utf8.RuneSelf {
			i++
			continue
		}
		dst = append(dst, src[start:i]...)
		r, n := utf8.DecodeRune(src[i:])
		dst = appendRuneEscape(dst, r)
		i += n
		start = i
	}
	return append(dst, src[start:]...)
}

// IsASCII reports whether b is 7-bit clean (then AppendASCII would copy it unchanged).
func IsASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// AppendResult appends a JSON-RPC success response: id is the request's id literal, byte for
// byte as received ([Value.Raw]), or nil for null; result is a JSON value.
func AppendResult(dst, id, result []byte) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = appendID(dst, id)
	dst = append(dst, `,"result":`...)
	dst = append(dst, result...)
	return append(dst, '}')
}

// AppendError appends a JSON-RPC error response. id is the request's id literal or nil for
// null; data is a JSON value, or nil to omit it.
func AppendError(dst, id []byte, code int64, message string, data []byte, asciiOnly bool) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = appendID(dst, id)
	dst = append(dst, `,"error":{"code":`...)
	dst = strconv.AppendInt(dst, code, 10)
	dst = append(dst, `,"message":`...)
	dst = AppendString(dst, message, asciiOnly)
	if data != nil {
		dst = append(dst, `,"data":`...)
		dst = append(dst, data...)
	}
	return append(dst, '}', '}')
}

// AppendNotification appends a JSON-RPC notification; params is a JSON object or nil.
func AppendNotification(dst []byte, method string, params []byte) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","method":`...)
	dst = AppendString(dst, method, false)
	if params != nil {
		dst = append(dst, `,"params":`...)
		dst = append(dst, params...)
	}
	return append(dst, '}')
}

func appendID(dst, id []byte) []byte {
	if id == nil {
		return append(dst, "null"...)
	}
	return append(dst, id...)
}
