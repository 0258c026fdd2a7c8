package decode

// Fast paths for the keys the message captures. When the source holds a captured key
// exactly as written here, quotes and colon included, it is that key with no escapes and the
// colon follows: the key needs no string scan and no lookup. Any other spelling (escapes,
// whitespace before the colon, an unknown key) takes the general path, which gives the same
// result; these functions only make the common case cheap.

// knownKey matches a captured key of level lvl at src[i]; it returns the field and the index
// just past the colon, or -1 when no captured key is written there in the usual way.
func knownKey(src []byte, i int, lvl level) (field, int) {
	if i < 0 || i+1 >= len(src) {
		return fNone, -1
	}
	c := src[i+1]
	switch lvl {
	case lvlEnvelope:
		switch c {
		case 'j':
			return fVersion, hasKey(src, i, `"jsonrpc":`)
		case 'i':
			return fID, hasKey(src, i, `"id":`)
		case 'm':
			return fMethod, hasKey(src, i, `"method":`)
		case 'p':
			return fParams, hasKey(src, i, `"params":`)
		case 'r':
			return fResult, hasKey(src, i, `"result":`)
		case 'e':
			return fError, hasKey(src, i, `"error":`)
		}
	case lvlParams:
		switch c {
		case '_':
			return fMeta, hasKey(src, i, `"_meta":`)
		case 'n':
			return fName, hasKey(src, i, `"name":`)
		case 'a':
			return fArguments, hasKey(src, i, `"arguments":`)
		case 'u':
			return fURI, hasKey(src, i, `"uri":`)
		case 'c':
			return fCursor, hasKey(src, i, `"cursor":`)
		case 'i':
			return fInputResponses, hasKey(src, i, `"inputResponses":`)
		case 'r':
			return fRequestState, hasKey(src, i, `"requestState":`)
		}
	case lvlMeta:
		return metaKey(src, i, c)
	}
	return fNone, -1
}

// mcpPrefix is the namespace of the MCP _meta keys; a key under it is told by the byte after
// the prefix (and, for the two client keys, the byte after "client").
const mcpPrefix = `"io.modelcontextprotocol/`

func metaKey(src []byte, i int, c byte) (field, int) {
	switch c {
	case 'i':
		p := i + len(mcpPrefix)
		if p+7 >= len(src) {
			return fNone, -1
		}
		switch src[p] {
		case 'p':
			return fProtocolVersion, hasKey(src, i, mcpPrefix+`protocolVersion":`)
		case 'c':
			if src[p+6] == 'C' {
				return fClientCapabilities, hasKey(src, i, mcpPrefix+`clientCapabilities":`)
			}
			return fClientInfo, hasKey(src, i, mcpPrefix+`clientInfo":`)
		case 'l':
			return fLogLevel, hasKey(src, i, mcpPrefix+`logLevel":`)
		}
	case 'p':
		return fProgressToken, hasKey(src, i, `"progressToken":`)
	case 't':
		if i+6 < len(src) && src[i+6] == 's' {
			return fTraceState, hasKey(src, i, `"tracestate":`)
		}
		return fTraceParent, hasKey(src, i, `"traceparent":`)
	case 'b':
		return fBaggage, hasKey(src, i, `"baggage":`)
	}
	return fNone, -1
}

// hasKey returns the index just past lit when src[i:] starts with it, else -1.
func hasKey(src []byte, i int, lit string) int {
	if j := i + len(lit); j <= len(src) && string(src[i:j]) == lit {
		return j
	}
	return -1
}
