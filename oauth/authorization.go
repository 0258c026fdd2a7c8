package oauth

// authScheme is the scheme of a request's Authorization header.
type authScheme uint8

const (
	schemeNone   authScheme = iota // no header, or one of another scheme, or malformed before one
	schemeBearer                   // RFC 6750
	schemeDPoP                     // RFC 9449 §7.1
)

// credentialFault is what is wrong with a request's Authorization header.
type credentialFault uint8

const (
	credentialOK credentialFault = iota
	// credentialMissing: no Authorization header, or one of another scheme (Basic, or one
	// the mode does not accept): 401 with a challenge and no error code (RFC 6750 §3.1).
	credentialMissing
	// credentialMalformed: a Bearer or DPoP header that is not the scheme, 1*SP and a
	// b64token (token68): 400 invalid_request.
	credentialMalformed
	// credentialRepeated: more than one Authorization header: 400 invalid_request.
	credentialRepeated
	// credentialTooLarge: a token over MaxTokenBytes: 401 invalid_token, not verified.
	credentialTooLarge
)

// credential extracts the access token of the Authorization header values and its scheme,
// Bearer (RFC 6750 §2.1) or DPoP (RFC 9449 §7.1), whose syntax is the same (RFC 9110
// §11.6.2): the scheme is case-insensitive, one or more spaces separate it from the token,
// surrounding whitespace is dropped, and the token is a b64token. Another scheme is
// credentialMissing with schemeNone. The token aliases values.
func credential(values [][]byte, maxTokenBytes int) (authScheme, []byte, credentialFault) {
	switch len(values) {
	case 0:
		return schemeNone, nil, credentialMissing
	case 1:
	default:
		return schemeNone, nil, credentialRepeated
	}
	v := trimSpace(values[0])
	if len(v) == 0 {
		return schemeNone, nil, credentialMalformed
	}
	i := 0
	for i < len(v) && isTokenChar(v[i]) {
		i++
	}
	if i == 0 {
		return schemeNone, nil, credentialMalformed // no auth-scheme
	}
	var s authScheme
	switch {
	case asciiEqualFold(v[:i], "bearer"):
		s = schemeBearer
	case asciiEqualFold(v[:i], "dpop"):
		s = schemeDPoP
	default:
		if i < len(v) && v[i] != ' ' && v[i] != '\t' {
			return schemeNone, nil, credentialMalformed // garbage after the scheme name
		}
		return schemeNone, nil, credentialMissing
	}
	j := i
	for j < len(v) && v[j] == ' ' {
		j++
	}
	if j == i || j == len(v) {
		return s, nil, credentialMalformed // the scheme alone, or not followed by a space
	}
	tok := v[j:]
	if !isB64Token(tok) {
		return s, nil, credentialMalformed
	}
	if len(tok) > maxTokenBytes {
		return s, nil, credentialTooLarge
	}
	return s, tok, credentialOK
}

// isB64Token reports whether t is 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=".
func isB64Token(t []byte) bool {
	i := 0
	for i < len(t) && isB64Char(t[i]) {
		i++
	}
	if i == 0 {
		return false
	}
	for i < len(t) && t[i] == '=' {
		i++
	}
	return i == len(t)
}

func isB64Char(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/'
}

// isTokenChar reports whether c is a tchar (RFC 9110 §5.6.2).
func isTokenChar(c byte) bool {
	if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
		return true
	}
	switch c {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
		return true
	}
	return false
}

func trimSpace(v []byte) []byte {
	for len(v) > 0 && (v[0] == ' ' || v[0] == '\t') {
		v = v[1:]
	}
	for len(v) > 0 && (v[len(v)-1] == ' ' || v[len(v)-1] == '\t') {
		v = v[:len(v)-1]
	}
	return v
}

func asciiEqualFold(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := range b {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
