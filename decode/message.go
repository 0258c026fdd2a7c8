package decode

// Kind classifies a decoded message.
type Kind uint8

const (
	// KindInvalid: not a JSON-RPC message (not an object, or no method, result or error).
	KindInvalid Kind = iota
	// KindRequest: a method and an id; it expects exactly one reply.
	KindRequest
	// KindNotification: a method and no id; it is never answered, even when malformed.
	KindNotification
	// KindResponse: an id and a result or error, with no method.
	KindResponse
	// KindBatch: a JSON array of messages (refused with CodeInvalidRequest).
	KindBatch
)

var kindNames = [...]string{"invalid", "request", "notification", "response", "batch"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Type is the JSON type of a [Value].
type Type uint8

const (
	// TypeAbsent: the member is not in the message.
	TypeAbsent Type = iota
	TypeNull
	TypeBool
	// TypeInteger: a number with no fraction and no exponent.
	TypeInteger
	// TypeNumber: a number with a fraction or an exponent.
	TypeNumber
	TypeString
	TypeArray
	TypeObject
)

var typeNames = [...]string{"absent", "null", "boolean", "integer", "number", "string", "array", "object"}

func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "unknown"
}

// Value is a borrowed view of one JSON value inside a decoded message. Its bytes are valid
// until the message's input buffer is reused or the [Message] is decoded again; use
// [Value.String] or copy the bytes for anything that outlives them.
type Value struct {
	raw  []byte
	text []byte
	typ  Type
}

// Type reports the JSON type, TypeAbsent when the member is missing.
func (v Value) Type() Type { return v.typ }

// Present reports whether the member is in the message (an explicit null counts).
func (v Value) Present() bool { return v.typ != TypeAbsent }

// Raw returns the exact literal bytes of the value, for example `"a\u0062"` or `{"x":1}`.
// Borrowed: valid until the input buffer is reused or the Message is decoded again.
func (v Value) Raw() []byte { return v.raw }

// Text returns the unescaped content of a string value (nil for other types).
// Borrowed: valid until the input buffer is reused or the Message is decoded again.
func (v Value) Text() []byte { return v.text }

// String returns a copy of the unescaped content of a string value ("" for other types).
func (v Value) String() string { return string(v.text) }

// span locates one captured value: its raw literal in the source and, for strings, the
// unescaped content (in the source when it has no escapes, else in the message's text buffer).
type span struct {
	start, end   uint32
	tstart, tend uint32
	typ          Type
	textInBuf    bool
}

// Message is the decoded view of one JSON-RPC message. Every accessor returns bytes borrowed
// from the input given to Decode: they are valid until that buffer is reused (for an HTTP
// body, until the handler returns) or the Message is decoded again. [Message.CopyTo] makes a
// Message that owns its bytes, for work that outlives the buffer.
//
// A Message is reusable: decoding into it again keeps its scratch buffers, so a pooled
// Message decodes without allocating. It must not be used from two goroutines at once.
type Message struct {
	src  []byte
	text []byte // unescaped copies of captured strings that contained escapes
	keys []keyEntry

	kind      Kind
	idOK      bool
	metaOther bool                // _meta has keys besides the captured ones
	owned     bool                // src was allocated by CopyTo and may be overwritten by the next CopyTo
	fields    [numFields + 1]span // numFields is fVersion
}

// field indexes the values a Message captures.
type field uint8

const (
	fID field = iota
	fMethod
	fParams
	fResult
	fError
	// Members of params.
	fMeta
	fName
	fURI
	fArguments
	fCursor
	fInputResponses
	fRequestState
	// Members of params._meta.
	fProtocolVersion
	fClientCapabilities
	fClientInfo
	fLogLevel
	fProgressToken
	fTraceParent
	fTraceState
	fBaggage
	numFields
)

func (m *Message) value(f field) Value {
	s := &m.fields[f]
	switch s.typ {
	case TypeAbsent:
		return Value{}
	case TypeString:
		// Composite literals returned whole: a Value built field by field on the stack and
		// copied out costs ten times as much (stores the copy's wider loads must wait for).
		if s.textInBuf {
			return Value{raw: m.src[s.start:s.end], text: m.text[s.tstart:s.tend], typ: TypeString}
		}
		return Value{raw: m.src[s.start:s.end], text: m.src[s.tstart:s.tend], typ: TypeString}
	}
	return Value{raw: m.src[s.start:s.end], typ: s.typ}
}

// Kind reports what the message is. It is meaningful even when Decode returned an error:
// a malformed notification is still KindNotification, and is never answered.
func (m *Message) Kind() Kind { return m.kind }

// Source returns the bytes the message was decoded from. Borrowed, like every accessor.
func (m *Message) Source() []byte { return m.src }

// ID returns the request id: a string or integer literal, byte for byte as the client sent it.
func (m *Message) ID() Value { return m.value(fID) }

// IDEchoable reports whether a reply may echo [Message.ID]: the id is present and within
// bounds. An error reply to a message whose id is not echoable carries a null id.
func (m *Message) IDEchoable() bool { return m.idOK }

// MetaHasOtherKeys reports whether params._meta has keys besides the ones a Message
// captures (protocolVersion, clientCapabilities, clientInfo, logLevel, progressToken and the
// trace context): vendor or future keys a reader may want to check.
func (m *Message) MetaHasOtherKeys() bool { return m.metaOther }

// Method returns the method name.
func (m *Message) Method() Value { return m.value(fMethod) }

// Params returns the params object.
func (m *Message) Params() Value { return m.value(fParams) }

// Result returns the result member of a response.
func (m *Message) Result() Value { return m.value(fResult) }

// Error returns the error member of a response.
func (m *Message) Error() Value { return m.value(fError) }

// Meta returns params._meta.
func (m *Message) Meta() Value { return m.value(fMeta) }

// Name returns params.name (tools/call, prompts/get).
func (m *Message) Name() Value { return m.value(fName) }

// URI returns params.uri (resources/read).
func (m *Message) URI() Value { return m.value(fURI) }

// Arguments returns params.arguments.
func (m *Message) Arguments() Value { return m.value(fArguments) }

// Cursor returns params.cursor (list methods).
func (m *Message) Cursor() Value { return m.value(fCursor) }

// InputResponses returns params.inputResponses (a multi round-trip retry).
func (m *Message) InputResponses() Value { return m.value(fInputResponses) }

// RequestState returns params.requestState (a multi round-trip retry).
func (m *Message) RequestState() Value { return m.value(fRequestState) }

// ProtocolVersion returns params._meta["io.modelcontextprotocol/protocolVersion"].
func (m *Message) ProtocolVersion() Value { return m.value(fProtocolVersion) }

// ClientCapabilities returns params._meta["io.modelcontextprotocol/clientCapabilities"].
func (m *Message) ClientCapabilities() Value { return m.value(fClientCapabilities) }

// ClientInfo returns params._meta["io.modelcontextprotocol/clientInfo"].
func (m *Message) ClientInfo() Value { return m.value(fClientInfo) }

// LogLevel returns params._meta["io.modelcontextprotocol/logLevel"].
func (m *Message) LogLevel() Value { return m.value(fLogLevel) }

// ProgressToken returns params._meta.progressToken; when present it is a string of at most
// [MaxIDBytes] bytes or an int64 integer (Decode refuses anything else).
func (m *Message) ProgressToken() Value { return m.value(fProgressToken) }

// TraceParent returns params._meta.traceparent (W3C trace context).
func (m *Message) TraceParent() Value { return m.value(fTraceParent) }

// TraceState returns params._meta.tracestate (W3C trace context).
func (m *Message) TraceState() Value { return m.value(fTraceState) }

// Baggage returns params._meta.baggage (W3C baggage).
func (m *Message) Baggage() Value { return m.value(fBaggage) }

// Reset forgets the decoded message and its input, keeping scratch buffers for reuse.
func (m *Message) Reset() {
	if !m.owned {
		m.src = nil
	}
	m.text = m.text[:0]
	m.keys = m.keys[:0]
	m.kind = KindInvalid
	m.idOK = false
	m.metaOther = false
	m.fields = [numFields + 1]span{}
}

// CopyTo makes dst a copy of m that owns its bytes, reusing dst's buffers. Use it for work
// that outlives the input buffer (a job that may run after an HTTP handler returned).
func (m *Message) CopyTo(dst *Message) {
	if dst.owned {
		dst.src = append(dst.src[:0], m.src...)
	} else {
		dst.src = append([]byte(nil), m.src...)
	}
	dst.owned = true
	dst.text = append(dst.text[:0], m.text...)
	dst.keys = dst.keys[:0]
	dst.kind = m.kind
	dst.idOK = m.idOK
	dst.metaOther = m.metaOther
	dst.fields = m.fields
}

// textOf returns the unescaped content of captured string f, nil when f is absent or not a
// string: Value(f).Text() without building the Value, for the accessors the hot paths call.
func (m *Message) textOf(f field) []byte {
	s := &m.fields[f]
	if s.typ != TypeString {
		return nil
	}
	if s.textInBuf {
		return m.text[s.tstart:s.tend]
	}
	return m.src[s.tstart:s.tend]
}

// MethodText is Method().Text(), at a fraction of its cost.
func (m *Message) MethodText() []byte { return m.textOf(fMethod) }

// NameText is Name().Text(), at a fraction of its cost.
func (m *Message) NameText() []byte { return m.textOf(fName) }

// ProtocolVersionText is ProtocolVersion().Text(), at a fraction of its cost.
func (m *Message) ProtocolVersionText() []byte { return m.textOf(fProtocolVersion) }
