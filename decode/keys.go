package decode

// Fast paths for the keys the message captures. When the source holds a captured key
// exactly as written here, quotes and colon included, it is that key with no escapes and the
// colon follows: the key needs no string scan and no lookup. Any other spelling (escapes,
// whitespace before the colon, an unknown key) takes the general path, which gives the same
// result; these functions only make the common case cheap.
//
// Each comparison is written against a constant in place: the compiler then compares up to
// sixteen bytes inline, where a helper taking the literal as an argument calls memequal.
// Longer keys are compared in pieces of at most sixteen bytes for the same reason.

// envelopeKey returns the envelope field whose key, quoted and followed by a colon, k
// (len(k) >= 2) starts with, and the length of those bytes; or 0 when k starts with none.
func envelopeKey(k []byte) (field, int) {
	switch k[1] {
	case 'j':
		const s = `"jsonrpc":`
		if len(k) >= len(s) && string(k[:len(s)]) == s {
			return fVersion, len(s)
		}
	case 'i':
		const s = `"id":`
		if len(k) >= len(s) && string(k[:len(s)]) == s {
			return fID, len(s)
		}
	case 'm':
		const s = `"method":`
		if len(k) >= len(s) && string(k[:len(s)]) == s {
			return fMethod, len(s)
		}
	case 'p':
		const s = `"params":`
		if len(k) >= len(s) && string(k[:len(s)]) == s {
			return fParams, len(s)
		}
	case 'r':
		const s = `"result":`
		if len(k) >= len(s) && string(k[:len(s)]) == s {
			return fResult, len(s)
		}
	case 'e':
		const s = `"error":`
		if len(k) >= len(s) && string(k[:len(s)]) == s {
			return fError, len(s)
		}
	}
	return fNone, 0
}

// paramsKey is envelopeKey for the members of params.
func paramsKey(k []byte) (field, int) {
	switch k[1] {
	case '_':
		const s = `"_meta":`
		if len(k) >= len(s) && string(k[:len(s)]) == s {
			return fMeta, len(s)
		}
	case 'n':
		const s = `"name":`
		if len(k) >= len(s) && string(k[:len(s)]) == s {
			return fName, len(s)
		}
	case 'a':
		const s = `"arguments":`
		if len(k) >= len(s) && string(k[:len(s)]) == s {
			return fArguments, len(s)
		}
	case 'u':
		const s = `"uri":`
		if len(k) >= len(s) && string(k[:len(s)]) == s {
			return fURI, len(s)
		}
	case 'c':
		const s = `"cursor":`
		if len(k) >= len(s) && string(k[:len(s)]) == s {
			return fCursor, len(s)
		}
	case 'i':
		const s, t = `"inputResponses"`, `:`
		if len(k) >= len(s)+len(t) && string(k[:len(s)]) == s && k[len(s)] == ':' {
			return fInputResponses, len(s) + len(t)
		}
	case 'r':
		const s = `"requestState":`
		if len(k) >= len(s) && string(k[:len(s)]) == s {
			return fRequestState, len(s)
		}
	}
	return fNone, 0
}

// mcpPrefix is the namespace of the MCP _meta keys, in two pieces for inline comparisons.
const mcpPrefix1, mcpPrefix2 = `"io.modelcontext`, `protocol/`

// metaKey is envelopeKey for the members of params._meta.
func metaKey(k []byte) (field, int) {
	switch k[1] {
	case 'i':
		const p = len(mcpPrefix1) + len(mcpPrefix2)
		if len(k) < p+12 || string(k[:len(mcpPrefix1)]) != mcpPrefix1 || string(k[len(mcpPrefix1):p]) != mcpPrefix2 {
			break
		}
		// The byte after the prefix tells the keys apart, and for the two client keys the
		// byte after "client". len(k) >= p+12 covers the shorter keys' comparisons.
		switch r := k[p:]; r[0] {
		case 'p':
			const s, t = `protocolVersion"`, `:`
			if len(r) >= len(s)+len(t) && string(r[:len(s)]) == s && r[len(s)] == ':' {
				return fProtocolVersion, p + len(s) + len(t)
			}
		case 'c':
			if r[6] == 'C' {
				const s, t = `clientCapabiliti`, `es":`
				if len(r) >= len(s)+len(t) && string(r[:len(s)]) == s && string(r[len(s):len(s)+len(t)]) == t {
					return fClientCapabilities, p + len(s) + len(t)
				}
				break
			}
			const s = `clientInfo":`
			if string(r[:len(s)]) == s {
				return fClientInfo, p + len(s)
			}
		case 'l':
			const s = `logLevel":`
			if string(r[:len(s)]) == s {
				return fLogLevel, p + len(s)
			}
		}
	case 'p':
		const s = `"progressToken":`
		if len(k) >= len(s) && string(k[:len(s)]) == s {
			return fProgressToken, len(s)
		}
	case 't':
		const s1, s2 = `"traceparent":`, `"tracestate":`
		if len(k) >= len(s1) && string(k[:len(s1)]) == s1 {
			return fTraceParent, len(s1)
		}
		if len(k) >= len(s2) && string(k[:len(s2)]) == s2 {
			return fTraceState, len(s2)
		}
	case 'b':
		const s = `"baggage":`
		if len(k) >= len(s) && string(k[:len(s)]) == s {
			return fBaggage, len(s)
		}
	}
	return fNone, 0
}
