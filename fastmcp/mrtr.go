package fastmcp

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/internal/sealstate"
)

// InputRequired is what a handler returns (as its error) to ask the client for input before
// it can finish: a multi round-trip request. Only tools/call, prompts/get and resources/read
// may return it; from any other handler it is a server bug answered with -32603.
//
// The client answers by retrying the request with inputResponses; the handler runs again
// from the start, reads the answers with [Request.InputResponse] and its own State with
// [Request.State]. A retry that still lacks an answer should return InputRequired again.
type InputRequired struct {
	// Requests maps keys the handler chooses to what it asks.
	Requests map[string]InputRequest
	// State is the handler's own state for the next round. The server seals it (encrypted,
	// authenticated, bound to the request and the caller, expiring) into requestState.
	State []byte
}

func (e *InputRequired) Error() string { return "fastmcp: input required" }

// InputRequest is one thing a handler asks the client for.
type InputRequest struct {
	Method string          // elicitation/create, sampling/createMessage or roots/list
	Params json.RawMessage // the request's params object
}

// ElicitForm asks the user to fill a form; requestedSchema is a flat object schema.
func ElicitForm(message string, requestedSchema json.RawMessage) InputRequest {
	p := append([]byte(`{"mode":"form","message":`), decode.AppendString(nil, message, false)...)
	p = append(append(p, `,"requestedSchema":`...), requestedSchema...)
	return InputRequest{Method: "elicitation/create", Params: append(p, '}')}
}

// ElicitURL asks the user to visit url (for example to authorize a third party).
func ElicitURL(message, url string) InputRequest {
	p := append([]byte(`{"mode":"url","message":`), decode.AppendString(nil, message, false)...)
	p = append(append(p, `,"url":`...), decode.AppendString(nil, url, false)...)
	return InputRequest{Method: "elicitation/create", Params: append(p, '}')}
}

// Sample asks the client's model for a completion; params is a CreateMessageRequest params
// object (messages, maxTokens, …).
func Sample(params json.RawMessage) InputRequest {
	return InputRequest{Method: "sampling/createMessage", Params: params}
}

// ListRoots asks the client for its roots.
func ListRoots() InputRequest {
	return InputRequest{Method: "roots/list", Params: json.RawMessage(`{}`)}
}

var (
	errStateType     = &Error{Code: CodeInvalidParams, Message: "Invalid params: requestState must be a string"}
	errResponsesType = &Error{Code: CodeInvalidParams, Message: "Invalid params: inputResponses must map keys to objects"}
	errResponseShape = &Error{Code: CodeInvalidParams, Message: "Invalid params: malformed input response"}
)

// inputKind tags each input request in the sealed state, so the retry's answers can be
// checked before the handler runs.
const (
	inputElicit byte = iota + 1
	inputSample
	inputRoots
)

func inputKindOf(method string) byte {
	switch method {
	case "elicitation/create":
		return inputElicit
	case "sampling/createMessage":
		return inputSample
	case "roots/list":
		return inputRoots
	}
	return 0
}

// openState checks the retry envelope of a multi round-trip request and opens its
// requestState: bad shapes, tampered, expired or foreign state are -32602 before any handler
// runs. identity is the tool or prompt name or the resource URI; args the arguments object.
func (s *Server) openState(ctx context.Context, r *Request, identity string, args []byte) error {
	if !r.msg.RequestState().Present() && !r.msg.InputResponses().Present() {
		return nil // a first round: the common case stays out of the large frame below
	}
	return s.openRetry(ctx, r, identity, args)
}

func (s *Server) openRetry(ctx context.Context, r *Request, identity string, args []byte) error {
	m := r.msg
	rs, ir := m.RequestState(), m.InputResponses()
	if rs.Present() && rs.Type() != decode.TypeString {
		return errStateType
	}
	if ir.Present() {
		if ir.Type() != decode.TypeObject {
			return errResponsesType
		}
		ok := true
		decode.Members(ir.Raw(), func(_, _ []byte, t decode.Type) bool {
			ok = t == decode.TypeObject
			return ok
		})
		if !ok {
			return errResponsesType
		}
	}
	if !rs.Present() {
		return nil
	}
	payload, err := s.sealer.Load().Open(rs.Text(), s.binding(ctx, r.method, identity, args), s.now())
	if err != nil {
		s.cfg.Logger.Debug("fastmcp: refused requestState", "method", r.method, "err", err)
		return errInvalidState
	}
	kinds, state, ok := splitState(payload)
	if !ok {
		return errInvalidState
	}
	for key, kind := range kinds {
		answer := decode.Lookup(ir.Raw(), key)
		if answer.Present() && !validAnswer(kind, answer.Raw()) {
			return errResponseShape
		}
	}
	r.state = state
	return nil
}

func (s *Server) binding(ctx context.Context, method, identity string, args []byte) sealstate.Binding {
	return sealstate.Binding{
		Method:    method,
		Digest:    sealstate.Digest(identity, canonicalJSON(args)),
		Principal: principalOf(ctx),
	}
}

// validAnswer checks the shape of one answer against what was asked.
func validAnswer(kind byte, answer []byte) bool {
	switch kind {
	case inputElicit:
		switch decode.Lookup(answer, "action").String() {
		case "accept", "decline", "cancel":
		default:
			return false
		}
		c := decode.Lookup(answer, "content")
		return !c.Present() || c.Type() == decode.TypeObject
	case inputSample:
		return decode.Lookup(answer, "role").Type() == decode.TypeString &&
			decode.Lookup(answer, "model").Type() == decode.TypeString &&
			decode.Lookup(answer, "content").Present()
	case inputRoots:
		return decode.Lookup(answer, "roots").Type() == decode.TypeArray
	}
	return true
}

// appendInputRequired writes an input_required result: the requests (checked against the
// request's client capabilities) and the sealed state.
func (s *Server) appendInputRequired(ctx context.Context, dst []byte, r *Request, identity string, args []byte, ir *InputRequired) ([]byte, error) {
	if r.dialect.Legacy() {
		return nil, ir // handleLegacy asks the client itself, then runs the handler again
	}
	if r.deferred {
		return nil, s.checkDeferredInput(r, ir) // Server.RunTool's caller asks the client
	}
	keys := make([]string, 0, len(ir.Requests))
	for k := range ir.Requests {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var missing capabilitySet
	for _, k := range keys {
		req := ir.Requests[k]
		if inputKindOf(req.Method) == 0 || !json.Valid(req.Params) {
			s.cfg.Logger.Error("fastmcp: invalid input request", "method", r.method, "key", k, "input", req.Method)
			return nil, errInvalidResult
		}
		missing.need(req, r.msg.ClientCapabilities().Raw())
	}
	if !missing.empty() {
		return nil, missing.error()
	}
	payload := joinState(keys, ir)
	token, err := s.sealer.Load().Seal(nil, sealstate.State{Binding: s.binding(ctx, r.method, identity, args), Payload: payload}, s.now())
	if err != nil {
		s.cfg.Logger.Error("fastmcp: cannot seal requestState", "method", r.method, "err", err)
		return nil, errInvalidResult
	}
	dst = beginResult(dst, r.ID(), resultInputRequired)
	dst = append(dst, `,"inputRequests":{`...)
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		req := ir.Requests[k]
		dst = decode.AppendString(dst, k, false)
		dst = append(dst, `:{"method":"`...)
		dst = append(dst, req.Method...)
		dst = append(dst, `","params":`...)
		var b bytes.Buffer
		_ = json.Compact(&b, req.Params)
		dst = append(dst, b.Bytes()...)
		dst = append(dst, '}')
	}
	dst = append(dst, `},"requestState":"`...)
	dst = append(dst, token...)
	dst = append(dst, '"')
	return s.endResult(dst, nil), nil
}

// joinState encodes the sealed payload: the kinds of the input requests by key, then the
// handler's own state.
func joinState(keys []string, ir *InputRequired) []byte {
	p := binary.AppendUvarint(nil, uint64(len(keys)))
	for _, k := range keys {
		p = binary.AppendUvarint(p, uint64(len(k)))
		p = append(p, k...)
		p = append(p, inputKindOf(ir.Requests[k].Method))
	}
	return append(p, ir.State...)
}

func splitState(p []byte) (map[string]byte, []byte, bool) {
	n, w := binary.Uvarint(p)
	if w <= 0 || n > uint64(len(p)) {
		return nil, nil, false
	}
	p = p[w:]
	kinds := make(map[string]byte, n)
	for range n {
		l, w := binary.Uvarint(p)
		if w <= 0 || uint64(len(p)-w) < l+1 {
			return nil, nil, false
		}
		key := string(p[w : w+int(l)])
		kinds[key] = p[w+int(l)]
		p = p[w+int(l)+1:]
	}
	var state []byte
	if len(p) > 0 {
		state = p
	}
	return kinds, state, true
}

// canonicalJSON re-encodes a JSON value with sorted object keys and exact numbers, so that a
// retry that sends the same arguments in another key order binds to the same digest.
func canonicalJSON(raw []byte) []byte {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return raw
	}
	out, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return out
}

// capabilitySet collects the client capabilities input requests need but the request did
// not declare.
type capabilitySet struct {
	form, url, sampling, samplingTools, samplingContext, roots bool
}

func (c *capabilitySet) need(req InputRequest, caps []byte) {
	switch req.Method {
	case "elicitation/create":
		el := decode.Lookup(caps, "elicitation")
		if decode.Lookup(req.Params, "mode").String() == "url" {
			c.url = c.url || !hasCapability(caps, "elicitation", "url")
			return
		}
		// An empty elicitation object means form.
		formOK := el.Type() == decode.TypeObject && (string(el.Raw()) == "{}" || hasCapability(caps, "elicitation", "form") ||
			!decode.Lookup(el.Raw(), "url").Present())
		c.form = c.form || !formOK
	case "sampling/createMessage":
		if !hasCapability(caps, "sampling") {
			c.sampling = true
		}
		if (decode.Lookup(req.Params, "tools").Present() || decode.Lookup(req.Params, "toolChoice").Present()) && !hasCapability(caps, "sampling", "tools") {
			c.samplingTools = true
		}
		if ic := decode.Lookup(req.Params, "includeContext"); ic.Present() && ic.String() != "none" && !hasCapability(caps, "sampling", "context") {
			c.samplingContext = true
		}
	case "roots/list":
		c.roots = c.roots || !hasCapability(caps, "roots")
	}
}

func (c *capabilitySet) empty() bool { return *c == capabilitySet{} }

func (c *capabilitySet) error() *Error {
	var b bytes.Buffer
	b.WriteString(`{"requiredCapabilities":{`)
	sep := func() {
		if b.Len() > len(`{"requiredCapabilities":{`) {
			b.WriteByte(',')
		}
	}
	if c.form || c.url {
		sep()
		b.WriteString(`"elicitation":{`)
		switch {
		case c.form && c.url:
			b.WriteString(`"form":{},"url":{}`)
		case c.form:
			b.WriteString(`"form":{}`)
		default:
			b.WriteString(`"url":{}`)
		}
		b.WriteByte('}')
	}
	if c.roots {
		sep()
		b.WriteString(`"roots":{}`)
	}
	if c.sampling || c.samplingTools || c.samplingContext {
		sep()
		b.WriteString(`"sampling":{`)
		inner := []string{}
		if c.samplingContext {
			inner = append(inner, `"context":{}`)
		}
		if c.samplingTools {
			inner = append(inner, `"tools":{}`)
		}
		b.WriteString(strings.Join(inner, ","))
		b.WriteByte('}')
	}
	b.WriteString(`}}`)
	return &Error{Code: CodeMissingCapability, Message: "Missing required client capability", Data: b.Bytes(), admission: true}
}

// isCancellation reports whether err is the request's context ending.
func isCancellation(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
