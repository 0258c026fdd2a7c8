package decode

// level tells the scanner where in the message an object sits, which decides the members it
// captures and the code a duplicate key earns.
type level uint8

const (
	lvlOther    level = iota // outside params: id, result, error, or a non-object message
	lvlEnvelope              // the message object
	lvlParams                // the params object
	lvlMeta                  // params._meta
	lvlInParams              // anything else inside params
)

// fVersion and fNone extend the captured fields: jsonrpc is checked but not exposed, and
// fNone marks a member that is not captured.
const (
	fVersion = numFields
	fNone    = numFields + 1
)

// field returns the captured field a member key maps to at this level, or fNone. The keys
// of one level all differ in length, so the length picks the one candidate to compare.
func (l level) field(key []byte) field {
	switch l {
	case lvlEnvelope:
		return envelopeField(key)
	case lvlParams:
		return paramsField(key)
	case lvlMeta:
		return metaField(key)
	}
	return fNone
}

func envelopeField(key []byte) field {
	switch len(key) {
	case 2:
		if string(key) == "id" {
			return fID
		}
	case 5:
		if string(key) == "error" {
			return fError
		}
	case 6: // method, params and result share a length: the first byte tells them apart
		switch string(key) {
		case "method":
			return fMethod
		case "params":
			return fParams
		case "result":
			return fResult
		}
	case 7:
		if string(key) == "jsonrpc" {
			return fVersion
		}
	}
	return fNone
}

func paramsField(key []byte) field {
	var f field
	var want string
	switch len(key) {
	case 3:
		f, want = fURI, "uri"
	case 4:
		f, want = fName, "name"
	case 5:
		f, want = fMeta, "_meta"
	case 6:
		f, want = fCursor, "cursor"
	case 9:
		f, want = fArguments, "arguments"
	case 12:
		f, want = fRequestState, "requestState"
	case 14:
		f, want = fInputResponses, "inputResponses"
	default:
		return fNone
	}
	if string(key) != want {
		return fNone
	}
	return f
}

func metaField(key []byte) field {
	var f field
	var want string
	switch len(key) {
	case 7:
		f, want = fBaggage, "baggage"
	case 10:
		f, want = fTraceState, "tracestate"
	case 11:
		f, want = fTraceParent, "traceparent"
	case 13:
		f, want = fProgressToken, "progressToken"
	case 32:
		f, want = fLogLevel, "io.modelcontextprotocol/logLevel"
	case 34:
		f, want = fClientInfo, "io.modelcontextprotocol/clientInfo"
	case 39:
		f, want = fProtocolVersion, "io.modelcontextprotocol/protocolVersion"
	case 42:
		f, want = fClientCapabilities, "io.modelcontextprotocol/clientCapabilities"
	default:
		return fNone
	}
	if string(key) != want {
		return fNone
	}
	return f
}

// child returns the level of an element or member value with no special role.
func (l level) child() level {
	if l == lvlEnvelope || l == lvlOther {
		return lvlOther
	}
	return lvlInParams
}

func (l level) dupCode() Code {
	if l == lvlEnvelope || l == lvlOther {
		return CodeInvalidRequest
	}
	return CodeInvalidParams
}

func (l level) dupMessage() string {
	if l == lvlEnvelope || l == lvlOther {
		return msgEnvelopeDup
	}
	return msgParamsDup
}
