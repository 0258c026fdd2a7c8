package fastmcp

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"time"

	"github.com/bytedance/sonic"

	"github.com/fastmcp-go/fastmcp/decode"
)

// Request is what a handler knows about the request it serves, besides its typed input: the
// method, the request _meta, the caller's identity, the answers to earlier input requests
// and the state it sealed then, and the channels back to the client (progress, log
// messages). A Request is valid until the handler returns; its byte views are borrowed from
// the message.
type Request struct {
	server *Server
	msg    *decode.Message
	sink   Sink
	cat    *catalog // the catalog snapshot the request is served from

	method   string
	logLevel LogLevel // logOff when the request set no logLevel
	state    []byte   // the handler's own state, opened from requestState

	// An initialize-era request's dialect (0 for 2026-07-28), its client as the transport
	// knows it, and the client's answers to the last round of server-to-client requests.
	dialect Dialect
	client  *ConnState
	answers *inputAnswers
	// resultAt is where an initialize-era result object starts in the reply (see
	// Request.beginResult); newClient is the client state initialize or logging/setLevel made.
	resultAt  int
	newClient *ConnState

	progress progressGate
	// deferred marks a request of Server.RunTool: no extension takes it over, and an
	// InputRequired is returned to the caller rather than sealed into a response.
	deferred bool

	toolError bool // the result is a tools/call result with isError (see Reply.ToolError)
	// tool is the entry of cat the tools/call names, when an Observer's labelling looked it
	// up already (see resolved); nil means callTool looks it up.
	tool *toolEntry
}

func newRequest(s *Server, m *decode.Message, sink Sink) *Request {
	return &Request{server: s, msg: m, sink: sink, cat: s.catalog.Load(), logLevel: logOff}
}

// Method returns the JSON-RPC method, such as "tools/call".
func (r *Request) Method() string { return r.method }

// ID returns the JSON-RPC id literal, byte for byte as the client sent it. Borrowed.
func (r *Request) ID() []byte { return r.msg.ID().Raw() }

// Meta returns the raw params._meta object: every key the client sent, including future and
// vendor keys, unchanged. Borrowed.
func (r *Request) Meta() json.RawMessage { return r.msg.Meta().Raw() }

// ProtocolVersion returns the protocol version the request pinned: its _meta's, or for an
// initialize-era request its dialect's.
func (r *Request) ProtocolVersion() string {
	if r.dialect.Legacy() {
		return r.dialect.Version()
	}
	return string(r.msg.ProtocolVersion().Text())
}

// Dialect returns the protocol revision the request is served in.
func (r *Request) Dialect() Dialect {
	if r.dialect.Legacy() {
		return r.dialect
	}
	return Modern
}

// ClientCapabilities returns the raw ClientCapabilities object the request declared; for an
// initialize-era request, the one its client declared in initialize, or nil when the
// transport does not know it (stateless HTTP). Borrowed.
func (r *Request) ClientCapabilities() json.RawMessage {
	if r.dialect.Legacy() {
		return r.client.Capabilities
	}
	return r.msg.ClientCapabilities().Raw()
}

// ClientInfo returns the raw clientInfo object, or nil when the request sent none (an
// initialize-era request never does). Borrowed.
func (r *Request) ClientInfo() json.RawMessage { return r.msg.ClientInfo().Raw() }

// TraceContext returns the W3C trace context the request carried (empty strings when absent).
func (r *Request) TraceContext() (traceparent, tracestate, baggage string) {
	return r.msg.TraceParent().String(), r.msg.TraceState().String(), r.msg.Baggage().String()
}

// State returns the state the handler sealed into its previous input-required result, or nil
// on a first round. The server has verified it: it was sealed by this server (or a replica
// sharing one of its StateKeys) for the same method, component, arguments and principal, and has not
// expired. For an initialize-era request it is InputRequired.State of the previous round,
// kept in process, never sealed.
func (r *Request) State() []byte { return r.state }

// InputResponse decodes the client's answer to the input request named key into v. It reports
// false when the request carries no answer for key (a first round, or a partial retry): the
// handler then asks again. For an initialize-era request the answers are the client's
// responses to the server-to-client requests of the previous round; a client that answered
// key with a JSON-RPC error makes it return (true, that *Error).
func (r *Request) InputResponse(key string, v any) (bool, error) {
	raw := r.inputResponses()
	if r.answers != nil {
		if e, ok := r.answers.errs[key]; ok {
			return true, e
		}
	}
	answer := decode.Lookup(raw, key)
	if !answer.Present() {
		return false, nil
	}
	if err := sonic.Unmarshal(answer.Raw(), v); err != nil {
		return true, NewError(CodeInvalidParams, "Invalid input response: "+key, nil)
	}
	return true, nil
}

// HasInputResponse reports whether the request answers the input request named key.
func (r *Request) HasInputResponse(key string) bool {
	if r.answers != nil {
		if _, ok := r.answers.errs[key]; ok {
			return true
		}
	}
	return decode.Lookup(r.inputResponses(), key).Present()
}

// inputResponses is the JSON object of the answers: the retry's inputResponses, or for an
// initialize-era request the results the client sent to the last round.
func (r *Request) inputResponses() []byte {
	if r.dialect.Legacy() {
		if r.answers == nil {
			return nil
		}
		return r.answers.results
	}
	return r.msg.InputResponses().Raw()
}

// Identity is a caller identity verified by a transport (an HTTP gate, a net/http middleware),
// never read from the JSON of a request.
type Identity struct {
	// Principal names the caller; MRTR requestState is bound to it.
	Principal string
	// Claims carries whatever else the transport verified, for authorization policies.
	Claims any
	// Expires is when the credential that identified the caller expires; zero for never. A
	// subscriptions/listen stream served with this identity completes then, as at a drain,
	// so that the client opens it again with a fresh credential (which the gate checks);
	// other requests are not cut short.
	Expires time.Time
}

type identityKey struct{}

// WithIdentity returns a context that carries id to the handlers and the authorization policy
// of requests served with it. Transports call it after authenticating the caller.
func WithIdentity(ctx context.Context, id *Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// IdentityFrom returns the identity a transport attached to ctx, or nil.
func IdentityFrom(ctx context.Context) *Identity {
	id, _ := ctx.Value(identityKey{}).(*Identity)
	return id
}

func principalOf(ctx context.Context) string {
	if id := IdentityFrom(ctx); id != nil {
		return id.Principal
	}
	return ""
}

// progressGate enforces the progress limits of one request.
type progressGate struct {
	busy    atomic.Bool
	updates atomic.Int32
	last    atomic.Uint64 // math.Float64bits of the last progress value reported
	started atomic.Bool
}
