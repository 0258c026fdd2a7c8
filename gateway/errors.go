package gateway

import (
	"errors"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

var (
	// ErrInvalidConfig: New refused the configuration.
	ErrInvalidConfig = errors.New("gateway: invalid configuration")
	// ErrCatalogTooLarge: a backend listed more than Config.MaxCatalogEntries entries.
	ErrCatalogTooLarge = errors.New("gateway: backend catalog exceeds MaxCatalogEntries")
	// ErrClosed: the Gateway was closed.
	ErrClosed = errors.New("gateway: closed")
)

// CodeBackendUnavailable is the JSON-RPC code of a request whose backend is down or whose
// connection broke during the call: -32603, message `Backend "NAME" is unavailable`,
// data {"backend":"NAME"}. Why it is down is logged, never sent: it would tell the caller
// the backend's address.
const CodeBackendUnavailable = fastmcp.CodeInternalError

// unavailable is the error a caller of a down backend gets.
func unavailable(name string) *fastmcp.Error {
	return backendError(name, "is unavailable")
}

// The errors of a backend that answered badly, or not in time: -32603 with the same data as
// the unavailable error, the backend still up. What exactly was wrong is logged, never
// sent.
func malformedAnswer(name string) *fastmcp.Error {
	return backendError(name, "sent a malformed answer")
}
func answerTooLarge(name string) *fastmcp.Error {
	return backendError(name, "sent an answer larger than the gateway accepts")
}
func answerTimedOut(name string) *fastmcp.Error { return backendError(name, "did not answer in time") }

// refusedAuthorization is the answer to a call the backend refused the Gateway's own
// authorization for (401, or 403 with a challenge: its credential lacks a scope this call
// needs); the caller's own credentials never reach a backend, so they are not the cause.
func refusedAuthorization(name string) *fastmcp.Error {
	return backendError(name, "refused the gateway's authorization for this request")
}

// backendError is -32603 `Backend "NAME" what`, data {"backend":"NAME"} (a backend name
// needs no JSON escaping).
func backendError(name, what string) *fastmcp.Error {
	return fastmcp.NewError(CodeBackendUnavailable, `Backend "`+name+`" `+what, []byte(`{"backend":"`+name+`"}`))
}
