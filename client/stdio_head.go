package client

// headID returns the raw id of the JSON-RPC message whose first bytes are b (an over-long
// line, cut short), when a top-level "id" member with a complete integer or string value is
// among them; nil otherwise. It reads untrusted, truncated input and never panics.
func headID(b []byte) []byte {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil
	}
	i++
	for {
		i = skipWS(b, i)
		if i >= len(b) || b[i] != '"' {
			return nil
		}
		kend := stringEnd(b, i)
		if kend < 0 {
			return nil
		}
		key := b[i+1 : kend-1]
		i = skipWS(b, kend)
		if i >= len(b) || b[i] != ':' {
			return nil
		}
		i = skipWS(b, i+1)
		vend := valueEnd(b, i)
		if vend < 0 {
			return nil
		}
		if string(key) == "id" {
			if v := b[i:vend]; v[0] == '"' || v[0] == '-' || (v[0] >= '0' && v[0] <= '9') {
				return v
			}
			return nil
		}
		i = skipWS(b, vend)
		if i >= len(b) || b[i] != ',' {
			return nil
		}
		i++
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// stringEnd returns the index past the closing quote of the string at b[i], or -1.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// valueEnd returns the index past the value starting at b[i], or -1 when it does not end
// within b. A number is complete only when a delimiter follows it.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				if j = stringEnd(b, j); j < 0 {
					return -1
				}
				j--
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	for j := i; j < len(b); j++ {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			if j == i {
				return -1
			}
			return j
		}
	}
	return -1
}
