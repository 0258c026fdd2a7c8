package transport

import (
	"context"
	"time"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fastmcp/internal/corelink"
	"github.com/fastmcp-go/fastmcp/internal/jsonschema"
)

// core is the transport-facing side of a *fastmcp.Server, as package fastmcp makes it.
type core interface {
	Serve(ctx context.Context, st *fastmcp.ConnState, m *decode.Message, sink fastmcp.Sink, dst []byte) fastmcp.Reply
	Classify(m *decode.Message, version []byte, hasVersion bool) (fastmcp.Dialect, *fastmcp.Error)
	Stateless(d fastmcp.Dialect) fastmcp.ConnState
	Answer(m *decode.Message, principal string) bool
	Decoder() *decode.Decoder
	Serves(d fastmcp.Dialect) bool
	ServesLegacy() bool
	NamedBy(method []byte) string
	HeaderParams(tool []byte) ([]jsonschema.HeaderParam, bool)
	SubscribeEvents(ev *fastmcp.LegacyEvents) func(ctx context.Context, sink fastmcp.Sink) error
	OutstandingRequests() int
	DecodeError(dst []byte, m *decode.Message, err error) fastmcp.Reply
	SealSession(st *fastmcp.ConnState, principal string, ttl time.Duration) ([]byte, error)
	OpenSession(id []byte, principal string) (fastmcp.ConnState, time.Time, bool)
	Subscribe(deliver func(fastmcp.Event)) (cancel func())
	Publish(e fastmcp.Event)
}

// Endpoint is the side of a [fastmcp.Server] that a transport serves: what the transport
// asks the core of each message, and the one entry point that serves it. It is safe for
// concurrent use; make one per transport with [For].
type Endpoint struct {
	c core
}

// For returns the endpoint of s. It panics when s is nil.
func For(s *fastmcp.Server) *Endpoint {
	if s == nil {
		panic("transport: nil fastmcp.Server")
	}
	return &Endpoint{c: corelink.HostSide(s).(core)}
}

// Serve serves one decoded message for a client in state st and appends its response to
// dst: the one entry point of every transport. st.Dialect, which [Endpoint.Classify]
// chose, decides how: a 2026-07-28 request carries its own version and capabilities; an
// initialize-era one is served with what st knows of its client (initialize negotiates
// the version itself and reports the connection's new state in [fastmcp.Reply.State], as
// logging/setLevel does; stateless HTTP serves each request with [Endpoint.Stateless]).
//
// ctx is the request's context: the transport cancels it when the client goes away, on a
// cancellation, at the request deadline and at shutdown; handlers see it. m must have
// decoded without error (see [Endpoint.DecodeError]); its bytes must stay valid until
// Serve returns. st is read, never changed. Notifications and responses are the
// transport's: Serve answers nothing for them (a response goes to [Endpoint.Answer]).
//
// Serve blocks until the request is finished. For subscriptions/listen that is when the
// subscription ends: the acknowledgement and the events go to sink meanwhile. A listen
// stream copies what it keeps of m (its id, its filter) before it sends the
// acknowledgement and never reads m again: from the first Notify on, the transport may
// release m and the bytes it views, and should, since a stream may last for hours. An
// error reply (the listen was refused) comes with no Notify, and may read m until Serve
// returns.
//
// Where the dialect turns a handler's need for input into server-to-client requests
// ([Rules].ClientRequests), sink must be a [fastmcp.Requester] for them, and the answers
// come through [Endpoint.Answer]; the handler then runs again with the answers, on this
// goroutine. A Requester that cannot wait where the request runs returns
// [fastmcp.ErrCannotWait], and Serve returns at once with [fastmcp.Reply].Rerun: serve the
// message again where the transport can wait.
func (e *Endpoint) Serve(ctx context.Context, st *fastmcp.ConnState, m *decode.Message, sink fastmcp.Sink, dst []byte) fastmcp.Reply {
	return e.c.Serve(ctx, st, m, sink, dst)
}

// Classify tells which dialect serves a decoded request, statelessly: version is the
// protocol version the transport carries beside the message (the MCP-Protocol-Version
// header over HTTP; on stdio the version initialize negotiated), hasVersion whether there
// is one. A request is 2026-07-28's when its params._meta names a protocol version;
// initialize opens the newest initialize-era dialect enabled (it negotiates the version
// itself); otherwise version decides: an initialize-era version the server serves selects
// that dialect, an unknown or disabled one is refused with -32022 naming the versions
// served (HTTP 400), and a 2026-07-28 version, or none, leaves the request to 2026-07-28,
// whose rules refuse it when its _meta is missing. With no initialize-era dialect enabled,
// initialize is 2026-07-28's too, and gets its answer: -32601 naming the versions served.
func (e *Endpoint) Classify(m *decode.Message, version []byte, hasVersion bool) (fastmcp.Dialect, *fastmcp.Error) {
	return e.c.Classify(m, version, hasVersion)
}

// Stateless is the state of a client in dialect d that the transport keeps nothing of
// (stateless HTTP): its capabilities unknown, log messages at [fastmcp.Config].LegacyLogLevel,
// and no channel for unsolicited notifications.
func (e *Endpoint) Stateless(d fastmcp.Dialect) fastmcp.ConnState { return e.c.Stateless(d) }

// Answer delivers a JSON-RPC response from the client (m is a response object) to the
// server-to-client request it answers. principal is the identity the answer arrived with
// ("" when none): it must be the one the request was made for. Answer reports false when
// no outstanding request has the id (a late, repeated or foreign answer) or the principal
// differs: the transport ignores it, and a request of another principal keeps waiting.
// Answer copies what it keeps: the transport may release m when it returns.
func (e *Endpoint) Answer(m *decode.Message, principal string) bool { return e.c.Answer(m, principal) }

// Decoder returns the decoder the server uses, with the limits of its Config.
func (e *Endpoint) Decoder() *decode.Decoder { return e.c.Decoder() }

// DecodeError appends the reply to a message that failed to decode (err from
// [decode.Decoder.Decode]): an error response that echoes the id only when it was readable
// and within bounds, or nothing for a notification or a response object, which are never
// answered.
func (e *Endpoint) DecodeError(dst []byte, m *decode.Message, err error) fastmcp.Reply {
	return e.c.DecodeError(dst, m, err)
}

// Serves reports whether the server's Config enables d.
func (e *Endpoint) Serves(d fastmcp.Dialect) bool { return e.c.Serves(d) }

// ServesLegacy reports whether the server's Config enables an initialize-era dialect.
func (e *Endpoint) ServesLegacy() bool { return e.c.ServesLegacy() }

// NamedBy returns the params member the Mcp-Name header mirrors for a 2026-07-28 method:
// "name" for tools/call and prompts/get, "uri" for resources/read, an extension's own
// member for its methods (such as tasks/get's taskId), "" for the others.
func (e *Endpoint) NamedBy(method []byte) string { return e.c.NamedBy(method) }

// HeaderParams returns the x-mcp-header arguments of the named tool, which a 2026-07-28
// tools/call mirrors in Mcp-Param-* headers; ok is false for an unknown tool.
func (e *Endpoint) HeaderParams(tool []byte) (p HeaderParams, ok bool) {
	ps, ok := e.c.HeaderParams(tool)
	return HeaderParams{ps: ps}, ok
}

// SubscribeEvents subscribes an initialize-era connection with the subscriptions ev (nil:
// none) to the notifications it gets unasked, and returns the function that writes them to
// a sink until its ctx ends: notifications/tools/list_changed, prompts/list_changed and
// resources/list_changed when the catalog changes, and notifications/resources/updated for
// the URIs subscribed in ev. It writes one at a time; changes that arrive meanwhile wait in
// a bounded queue, which never blocks the publisher: a burst of list_changed of one kind
// is one notification, an update of a URI already queued is one, and updates past
// [fastmcp.Config].SubscriptionBuffer URIs are dropped with a logged warning. The function
// returns ctx's error, or the sink's when a write fails. A transport subscribes before the
// client can see the initialize result and serves on a goroutine of its own, so no change
// published after that result is lost. The function must be called exactly once: until it
// returns, the subscription holds its queue.
func (e *Endpoint) SubscribeEvents(ev *fastmcp.LegacyEvents) func(ctx context.Context, sink fastmcp.Sink) error {
	return e.c.SubscribeEvents(ev)
}

// OutstandingRequests returns the number of server-to-client requests awaiting an answer.
func (e *Endpoint) OutstandingRequests() int { return e.c.OutstandingRequests() }

// SealSession returns an initialize-era HTTP session id (Mcp-Session-Id) that is itself the
// session's state: st's dialect, client capabilities and log level, bound to principal and
// valid for ttl (at most [fastmcp.MaxSessionTTL]), sealed with the server's requestState
// key, so that every replica sharing [fastmcp.Config].StateKey opens it and none keeps a
// session table. The id is unpadded base64url (visible ASCII only).
func (e *Endpoint) SealSession(st *fastmcp.ConnState, principal string, ttl time.Duration) ([]byte, error) {
	return e.c.SealSession(st, principal, ttl)
}

// OpenSession returns the state a session id from SealSession carries and when it expires;
// ok is false when the id is not one of the server's keys sealed for principal, or has
// expired (the revisions answer both with 404, and the client initializes again).
func (e *Endpoint) OpenSession(id []byte, principal string) (st fastmcp.ConnState, expiry time.Time, ok bool) {
	return e.c.OpenSession(id, principal)
}

// Subscribe is [fastmcp.Server.Subscribe]: every event the server's bus delivers, of every
// kind (a session's transport reads the SessionMessage events addressed to the streams it
// holds).
func (e *Endpoint) Subscribe(deliver func(fastmcp.Event)) (cancel func()) {
	return e.c.Subscribe(deliver)
}

// Publish is [fastmcp.Server.Publish]: e goes to every replica sharing the server's bus.
func (e *Endpoint) Publish(ev fastmcp.Event) { e.c.Publish(ev) }
