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

// field returns the captured field a member key maps to at this level, or fNone.
func (l level) field(key []byte) field {
	switch l {
	case lvlEnvelope:
		switch string(key) {
		case "jsonrpc":
			return fVersion
		case "id":
			return fID
		case "method":
			return fMethod
		case "params":
			return fParams
		case "result":
			return fResult
		case "error":
			return fError
		}
	case lvlParams:
		switch string(key) {
		case "_meta":
			return fMeta
		case "name":
			return fName
		case "uri":
			return fURI
		case "arguments":
			return fArguments
		case "cursor":
			return fCursor
		case "inputResponses":
			return fInputResponses
		case "requestState":
			return fRequestState
		}
	case lvlMeta:
		switch string(key) {
		case "io.modelcontextprotocol/protocolVersion":
			return fProtocolVersion
		case "io.modelcontextprotocol/clientCapabilities":
			return fClientCapabilities
		case "io.modelcontextprotocol/clientInfo":
			return fClientInfo
		case "io.modelcontextprotocol/logLevel":
			return fLogLevel
		case "progressToken":
			return fProgressToken
		case "traceparent":
			return fTraceParent
		case "tracestate":
			return fTraceState
		case "baggage":
			return fBaggage
		}
	}
	return fNone
}

// childFor returns the level of the value of member f (isObject: that value is an object).
func (l level) childFor(f field, isObject bool) level {
	switch {
	case l == lvlEnvelope && f == fParams && isObject:
		return lvlParams
	case l == lvlEnvelope && f == fParams:
		return lvlInParams
	case l == lvlParams && f == fMeta && isObject:
		return lvlMeta
	}
	return l.child()
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
