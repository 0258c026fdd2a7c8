package fastmcp

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/fastmcp-go/fastmcp/decode"
)

// Extension is an MCP extension (capabilities.extensions[ID]) served by the 2026-07-28
// dialect: it is advertised in server/discover, serves its own methods, may take over
// tools/call after the core has looked the tool up, authorized the call and validated its
// arguments, and may add filter keys and notifications to subscriptions/listen. The
// initialize-era dialects never see it: they neither advertise it nor route to it.
//
// An extension's methods and its tools/call takeover run only for requests whose
// params._meta clientCapabilities.extensions declares ID (see [Request.DeclaresExtension]);
// an undeclared request to one of its methods is answered -32021 with
// data.requiredCapabilities.extensions[ID] before the method runs (HTTP 400).
type Extension struct {
	// ID names the extension, with a mandatory prefix: "io.modelcontextprotocol/tasks".
	ID string
	// Settings is the settings object advertised in capabilities.extensions[ID]; nil is {}.
	Settings json.RawMessage
	// Methods are the extension's methods by name; none may be a core method.
	Methods map[string]ExtensionMethod
	// ToolCall, if set, may take over tools/call (see [ToolCallHook]).
	ToolCall ToolCallHook
	// Listen, if set, reads the params.notifications filter of every 2026-07-28
	// subscriptions/listen request (see [ListenHook]). At most one extension has one.
	Listen ListenHook
}

// ExtensionMethod is one method of an [Extension].
type ExtensionMethod struct {
	// Serve answers the request with a result object (a JSON object with its resultType) or
	// an error. The core puts the server's serverInfo in the result's _meta (in place of any
	// the result names; its other _meta members are kept). The request's _meta is checked,
	// and it declares the extension.
	Serve func(ctx context.Context, r *Request) (json.RawMessage, error)
	// NamedBy is the params member the Mcp-Name header mirrors, "" for none (see
	// transport.Endpoint.NamedBy).
	NamedBy string
}

// ToolCallHook takes over tools/call. Take runs after lookup, authorization and the multi
// round-trip envelope check, before the arguments are validated: false leaves the call to the
// core, an error answers it (a required capability missing, say). Start runs once the
// arguments validated (invalid ones are answered as usual and reach no Start): it answers the
// call with a result object (JSON with its resultType; _meta as for Serve) or an error, or asks
// for input first with an *InputRequired error, as a tool handler does (its State is sealed
// the same way). The request need not declare the extension: Take decides. Neither runs for
// a request served with [Server.RunTool].
type ToolCallHook struct {
	Take  func(ctx context.Context, r *Request, tool string) (bool, error)
	Start func(ctx context.Context, r *Request, tool string, arguments json.RawMessage) (json.RawMessage, error)
}

// ListenHook reads a listen request's params.notifications filter (borrowed: copy what is
// kept). It returns nil when the filter asks nothing of the extension; otherwise the
// stream's tap, or an error that refuses the listen request before its acknowledgement.
type ListenHook func(ctx context.Context, r *Request, filter json.RawMessage) (*ListenTap, error)

// ListenTap is what a listen stream takes from an extension.
type ListenTap struct {
	// Ack holds the members the acknowledgement's notifications object gains, such as
	// `"taskIds":["a"]`, or nil.
	Ack []byte
	// Events carries the notifications to write; the core adds the subscriptionId _meta.
	Events <-chan ListenEvent
	// Stop is called once when the stream ends.
	Stop func()
}

// ListenEvent is one notification of a [ListenTap].
type ListenEvent struct {
	Method string
	// Params is the params object without _meta.
	Params json.RawMessage
}

// extensionSet is the registered extensions, replaced whole by AddExtension.
type extensionSet struct {
	list    []Extension
	methods map[string]*extMethod
	listen  ListenHook
	call    *ToolCallHook
	callID  string // the extension of call
}

type extMethod struct {
	ExtensionMethod
	id string
}

// AddExtension registers x. Register extensions before serving; requests in flight keep
// the set they started with. Registration mistakes panic: an ID without a prefix, a
// duplicate ID, a method of the core or of another extension, a second ToolCall or Listen.
func (s *Server) AddExtension(x Extension) {
	if i := strings.IndexByte(x.ID, '/'); i <= 0 || i == len(x.ID)-1 || !validMetaKey([]byte(x.ID)) {
		panic("fastmcp: AddExtension: invalid ID " + x.ID)
	}
	if x.Settings == nil {
		x.Settings = json.RawMessage("{}")
	} else if !json.Valid(x.Settings) || !isJSONObject(x.Settings) {
		panic("fastmcp: AddExtension " + x.ID + ": Settings must be a JSON object")
	}
	s.mu.Lock()
	old := s.ext.Load()
	next := &extensionSet{methods: map[string]*extMethod{}}
	if old != nil {
		next.list = append(next.list, old.list...)
		for k, v := range old.methods {
			next.methods[k] = v
		}
		next.listen, next.call, next.callID = old.listen, old.call, old.callID
	}
	fail := func(why string) {
		s.mu.Unlock()
		panic("fastmcp: AddExtension " + x.ID + ": " + why)
	}
	for _, e := range next.list {
		if e.ID == x.ID {
			fail("already registered")
		}
	}
	for name, m := range x.Methods {
		if coreMethod(name) || next.methods[name] != nil {
			fail("method " + name + " is already served")
		}
		if m.Serve == nil {
			fail("method " + name + " has no Serve")
		}
		next.methods[name] = &extMethod{m, x.ID}
	}
	if x.ToolCall.Take != nil || x.ToolCall.Start != nil {
		if x.ToolCall.Take == nil || x.ToolCall.Start == nil {
			fail("ToolCall needs both Take and Start")
		}
		if next.call != nil {
			fail("another extension takes over tools/call")
		}
		hook := x.ToolCall
		next.call, next.callID = &hook, x.ID
	}
	if x.Listen != nil {
		if next.listen != nil {
			fail("another extension reads the listen filter")
		}
		next.listen = x.Listen
	}
	next.list = append(next.list, x)
	s.ext.Store(next)
	s.mu.Unlock()
	s.update(0, func(*catalog) {}) // a new snapshot: server/discover is built again
}

// coreMethod reports whether name is served by the core in some dialect.
func coreMethod(name string) bool {
	if _, _, _, ok := componentRoute([]byte(name)); ok {
		return true
	}
	switch name {
	case MethodDiscover, MethodListen, MethodInitialize, MethodPing, MethodSetLevel,
		MethodResourcesSubscribe, MethodResourcesUnsubscribe,
		"elicitation/create", "sampling/createMessage", "roots/list":
		return true
	}
	return false
}

// namedBy returns the params member the Mcp-Name header mirrors for method: coreNamedBy's
// for the core methods, and the extension's own for an extension method.
func (s *Server) namedBy(method string) string {
	if n := coreNamedBy(method); n != "" {
		return n
	}
	if x := s.ext.Load(); x != nil {
		if m := x.methods[method]; m != nil {
			return m.NamedBy
		}
	}
	return ""
}

// DeclaresExtension reports whether the request's clientCapabilities declare the extension
// id. An initialize-era request never does: no extension is defined there.
func (r *Request) DeclaresExtension(id string) bool {
	if r.dialect.Legacy() {
		return false
	}
	return hasCapability(r.msg.ClientCapabilities().Raw(), "extensions", id)
}

// MissingExtension is the -32021 error for a request that must declare the extension id:
// {"code":-32021,"message":"Missing required client capability",
// "data":{"requiredCapabilities":{"extensions":{id:{}}}}}, answered with HTTP 400.
func MissingExtension(id string) *Error {
	data := append([]byte(`{"requiredCapabilities":{"extensions":{`), decode.AppendString(nil, id, false)...)
	data = append(data, `:{}}}}`...)
	return &Error{Code: CodeMissingCapability, Message: ErrMissingCapability.Message, Data: data, admission: true}
}

// serveExtension serves an extension method, or reports false when method is none.
func (s *Server) serveExtension(ctx context.Context, r *Request, method []byte, dst []byte) ([]byte, bool, error) {
	x := s.ext.Load()
	if x == nil {
		return nil, false, nil
	}
	m := x.methods[string(method)]
	if m == nil {
		return nil, false, nil
	}
	r.method = string(method)
	if err := s.checkMeta(r); err != nil {
		return nil, true, err
	}
	if !r.DeclaresExtension(m.id) {
		return nil, true, MissingExtension(m.id)
	}
	res, err := m.Serve(ctx, r)
	if err != nil {
		return nil, true, err
	}
	b, err := s.appendObjectResult(dst, r.ID(), res)
	return b, true, err
}

// appendObjectResult writes a response whose result is obj (a JSON object with its
// resultType), joined by the server's _meta: an object's own _meta members (a gateway's
// backend's) are kept in it, beside the server's serverInfo, which replaces any of theirs.
func (s *Server) appendObjectResult(dst, id []byte, obj json.RawMessage) ([]byte, error) {
	if !isJSONObject(obj) || decode.Lookup(obj, "resultType").Type() != decode.TypeString {
		s.cfg.Logger.Error("fastmcp: extension returned an invalid result")
		return nil, errInvalidResult
	}
	dst = append(dst, envelopeID...)
	dst = append(dst, id...)
	dst = append(dst, envelopeResult...)
	if !decode.Lookup(obj, "_meta").Present() { // the common case: obj as it is, then ours
		obj = trimSpaceRight(obj)
		dst = append(dst, obj[:len(obj)-1]...)
		if len(obj) > 2 && string(trimSpaceRight(obj[:len(obj)-1])) != "{" {
			dst = append(dst, ',')
		}
		dst = append(dst, s.serverMeta...)
		return append(dst, "}}"...), nil
	}
	dst = append(dst, '{')
	var meta []byte
	decode.Members(obj, func(key, v []byte, t decode.Type) bool {
		if decode.KeyEquals(key, "_meta") {
			if t == decode.TypeObject {
				meta = v
			}
			return true
		}
		dst = appendMember(dst, key, v)
		return true
	})
	if dst[len(dst)-1] != '{' {
		dst = append(dst, ',')
	}
	if meta == nil { // a _meta that is not an object
		dst = append(dst, s.serverMeta...)
		return append(dst, "}}"...), nil
	}
	dst = append(dst, `"_meta":{`...)
	decode.Members(meta, func(key, v []byte, _ decode.Type) bool {
		if !decode.KeyEquals(key, serverInfoKey) {
			dst = appendMember(dst, key, v)
		}
		return true
	})
	if dst[len(dst)-1] != '{' {
		dst = append(dst, ',')
	}
	dst = append(dst, s.serverMeta[len(`"_meta":{`):]...) // the serverInfo member and the closing brace
	return append(dst, "}}"...), nil
}

// appendMember appends `"key":value` (the raw key, escapes kept), after a comma unless it
// is the object's first.
func appendMember(dst, key, v []byte) []byte {
	if dst[len(dst)-1] != '{' {
		dst = append(dst, ',')
	}
	dst = append(append(append(dst, '"'), key...), `":`...)
	return append(dst, v...)
}

func trimSpaceRight(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\n' || b[len(b)-1] == '\r' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// appendExtensionCapabilities adds capabilities.extensions to a capabilities object.
func (s *Server) appendExtensionCapabilities(caps []byte) []byte {
	x := s.ext.Load()
	if x == nil || len(x.list) == 0 {
		return caps
	}
	caps = append(caps[:len(caps)-1], `,"extensions":{`...)
	for i, e := range x.list {
		if i > 0 {
			caps = append(caps, ',')
		}
		caps = decode.AppendString(caps, e.ID, false)
		caps = append(caps, ':')
		caps = append(caps, compactOrSelf(e.Settings)...)
	}
	return append(caps, "}}"...)
}

func compactOrSelf(b []byte) []byte {
	if c, err := compactJSON(b); err == nil {
		return c
	}
	return b
}

// InputResponses returns the raw inputResponses object of a multi round-trip retry (every
// answer, whether or not asked for), nil on a first round. Borrowed.
func (r *Request) InputResponses() json.RawMessage { return r.inputResponses() }

// Params returns the raw params object of the request. Borrowed.
func (r *Request) Params() json.RawMessage { return r.msg.Params().Raw() }
