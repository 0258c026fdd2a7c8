package oauth

// credentialFault is what is wrong with a request's Authorization header.
type credentialFault uint8

const (
	credentialOK credentialFault = iota
	// credentialMissing: no Authorization header, or one of another scheme (Basic, DPoP):
	// 401 with a challenge and no error code (RFC 6750 §3.1).
	credentialMissing
	// credentialMalformed: a Bearer header that is not "Bearer" 1*SP b64token: 400
	// invalid_request.
	credentialMalformed
	// credentialRepeated: more than one Authorization header: 400 invalid_request.
	credentialRepeated
	// credentialTooLarge: a token over MaxTokenBytes: 401 invalid_token, not verified.
	credentialTooLarge
)

// bearerToken extracts the bearer token of the Authorization header values (RFC 6750 §2.1,
// RFC 9110 §11.6.2): the scheme is case-insensitive, one or more spaces separate it from
// the token, surrounding whitespace is dropped, and the token is a b64token. The token
// aliases values.
func bearerToken(values [][]byte, maxTokenBytes int) ([]byte, credentialFault) {
	switch len(values) {
	case 0:
		return nil, credentialMissing
	case 1:
	default:
		return nil, credentialRepeated
	}
	v := trimSpace(values[0])
	if len(v) == 0 {
		return nil, credentialMalformed
	}
	i := 0
	for i < len(v) && isTokenChar(v[i]) {
		i++
	}
	if i == 0 {
		return nil, credentialMalformed // no auth-scheme
	}
	if !asciiEqualFold(v[:i], "bearer") {
		if i < len(v) && v[i] != ' ' && v[i] != '\t' {
			return nil, credentialMalformed // garbage after the scheme name
		}
		return nil, credentialMissing
	}
	j := i
	for j < len(v) && v[j] == ' ' {
		j++
	}
	if j == i || j == len(v) {
		return nil, credentialMalformed // "Bearer" alone, or not followed by a space
	}
	tok := v[j:]
	if !isB64Token(tok) {
		return nil, credentialMalformed
	}
	if len(tok) > maxTokenBytes {
		return nil, credentialTooLarge
	}
	return tok, credentialOK
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
