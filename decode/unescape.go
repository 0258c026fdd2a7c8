package decode

import "unicode/utf8"

// appendUnescaped appends the decoded content of a validated JSON string body (the bytes
// between the quotes) to dst.
func appendUnescaped(dst, body []byte) []byte {
	for i := 0; i < len(body); {
		c := body[i]
		if c != '\\' {
			j := i + 1
			for j < len(body) && body[j] != '\\' {
				j++
			}
			dst = append(dst, body[i:j]...)
			i = j
			continue
		}
		switch body[i+1] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, _ := hex4(body[i+2:])
			i += 6
			if r >= 0xD800 && r < 0xDC00 {
				lo, _ := hex4(body[i+2:])
				r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
				i += 6
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default: // '"', '\\', '/'
			dst = append(dst, body[i+1])
		}
		i += 2
	}
	return dst
}

// Unquote appends the unescaped content of the JSON string literal lit (quotes included) to
// dst. lit must come from a message Decode accepted; other input gives unspecified results.
func Unquote(dst, lit []byte) []byte {
	if len(lit) < 2 {
		return dst
	}
	return appendUnescaped(dst, lit[1:len(lit)-1])
}
