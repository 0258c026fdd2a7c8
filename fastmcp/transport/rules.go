package transport

import "github.com/fastmcp-go/fastmcp/fastmcp"

// Rules are what a transport asks of the dialect that serves a request, in place of
// branching on the dialect itself: how the request is cancelled, which of its headers
// mirror its body, whether it may ask the client, and the HTTP status of its reply.
type Rules struct {
	// MirroredHeaders: the request's MCP-Protocol-Version, Mcp-Method, Mcp-Name and
	// Mcp-Param-* headers mirror its body, and an HTTP transport checks them (2026-07-28).
	// Without them (the initialize era), a gate in front of the body cannot tell what the
	// request calls.
	MirroredHeaders bool
	// CancelByID: over Streamable HTTP, notifications/cancelled {requestId} from the same
	// client cancels its running request with that id (the initialize era; see
	// [Rules.Cancellable]); a 2026-07-28 request is cancelled by closing its stream. (Over
	// stdio every request is cancelled by id.)
	CancelByID bool
	// ClientRequests: a handler's need for input (elicitation, sampling, roots) becomes
	// real server-to-client requests, written through the request's sink, a
	// [fastmcp.Requester], and answered through [Endpoint.Answer], so the request may wait
	// for the client (the initialize era). Otherwise it is the input_required result.
	ClientRequests bool
	// LogsUnasked: a handler may log without the request asking (the level is the
	// connection's), so a transport that decides before the request runs whether it may
	// stream must assume it may (the initialize era). Otherwise a request that may log
	// names its logLevel.
	LogsUnasked bool

	legacy bool
}

var (
	modernRules = Rules{MirroredHeaders: true}
	legacyRules = Rules{CancelByID: true, ClientRequests: true, LogsUnasked: true, legacy: true}
)

// RulesOf returns the rules of d (2026-07-28's for the zero Dialect). They are shared:
// do not modify them.
func RulesOf(d fastmcp.Dialect) *Rules {
	if d.Legacy() {
		return &legacyRules
	}
	return &modernRules
}

// Streams reports whether method always answers with a stream, which the transport opens
// before serving it: 2026-07-28's subscriptions/listen.
func (r *Rules) Streams(method []byte) bool {
	return !r.legacy && string(method) == fastmcp.MethodListen
}

// Handshake reports whether method opens the connection's state, and is never cancelled:
// initialize in the initialize era.
func (r *Rules) Handshake(method []byte) bool {
	return r.legacy && string(method) == fastmcp.MethodInitialize
}

// ChangesState reports whether a request of method may report the connection's new state
// in [fastmcp.Reply].State, which a transport that keeps the state adopts before it serves
// the client's next message: initialize and logging/setLevel in the initialize era.
func (r *Rules) ChangesState(method []byte) bool {
	return r.legacy && (string(method) == fastmcp.MethodInitialize || string(method) == fastmcp.MethodSetLevel)
}

// Cancellable reports whether notifications/cancelled may name a running request of
// method: where the dialect cancels by id, every request but initialize, which the client
// must not cancel.
func (r *Rules) Cancellable(method []byte) bool {
	return r.CancelByID && !r.Handshake(method)
}

// The HTTP statuses of replies (literal, so that the core's transports need not import
// net/http).
const (
	statusOK                 = 200
	statusBadRequest         = 400
	statusNotFound           = 404
	statusServiceUnavailable = 503
)

// HTTPStatus is the status of a Streamable HTTP response carrying a reply with err (200
// for a result, err nil).
//
// 2026-07-28, by the specification's error table: 404 for an unknown method; 400 for
// parse, request, header, capability and version errors, and for invalid params of
// admission ([fastmcp.Error.Admission]: invalid request metadata, a message that did not
// decode); 503 when the core refused for want of capacity ([fastmcp.Error.Unavailable]:
// subscriptions/listen past Config.MaxSubscriptionBytes, or while it shuts down); 200 for
// every other error, which is a JSON-RPC error about an otherwise valid request.
//
// The initialize era: a JSON-RPC error about a request that reached its dialect travels in
// a 200 (what the revisions' clients expect: they read the error from the body), except
// the admission errors (the MCP-Protocol-Version header: "it MUST respond with 400 Bad
// Request") and the capacity refusals, 503.
func (r *Rules) HTTPStatus(err *fastmcp.Error) int {
	switch {
	case err == nil:
		return statusOK
	case err.Unavailable():
		return statusServiceUnavailable
	case r.legacy:
		if err.Admission() {
			return statusBadRequest
		}
		return statusOK
	}
	switch err.Code {
	case fastmcp.CodeMethodNotFound:
		return statusNotFound
	case fastmcp.CodeParseError, fastmcp.CodeInvalidRequest, fastmcp.CodeHeaderMismatch,
		fastmcp.CodeMissingCapability, fastmcp.CodeUnsupportedVersion:
		return statusBadRequest
	case fastmcp.CodeInvalidParams:
		if err.Admission() {
			return statusBadRequest
		}
	}
	return statusOK
}
