package streamable

import (
	"net/http"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// httpError is a response decided by the transport itself: a status and a JSON-RPC error with
// a null id (before the body parsed) or the request's id (after).
type httpError struct {
	status  int
	code    fastmcp.Code
	message string
	allow   bool // add Allow: POST
	noBody  bool
}

var (
	errMethod          = &httpError{status: http.StatusMethodNotAllowed, code: fastmcp.CodeInvalidRequest, message: "Method not allowed: use POST", allow: true}
	errPath            = &httpError{status: http.StatusNotFound, code: fastmcp.CodeInvalidRequest, message: "Not found"}
	errOrigin          = &httpError{status: http.StatusForbidden, code: fastmcp.CodeInvalidRequest, message: "Forbidden: origin not allowed"}
	errHost            = &httpError{status: http.StatusForbidden, code: fastmcp.CodeInvalidRequest, message: "Forbidden: host not allowed"}
	errContentType     = &httpError{status: http.StatusUnsupportedMediaType, code: fastmcp.CodeInvalidRequest, message: "Unsupported Media Type: Content-Type must be application/json"}
	errAccept          = &httpError{status: http.StatusNotAcceptable, code: fastmcp.CodeInvalidRequest, message: "Not Acceptable: Accept must list application/json and text/event-stream"}
	errLengthRequired  = &httpError{status: http.StatusLengthRequired, code: fastmcp.CodeInvalidRequest, message: "Length Required: send a Content-Length and no Transfer-Encoding"}
	errBodyTooLarge    = &httpError{status: http.StatusRequestEntityTooLarge, code: fastmcp.CodeInvalidRequest, message: "Request body exceeds the maximum size"}
	errHeaderTooLarge  = &httpError{status: http.StatusRequestHeaderFieldsTooLarge, code: fastmcp.CodeInvalidRequest, message: "Request header fields too large"}
	errBadRequest      = &httpError{status: http.StatusBadRequest, code: fastmcp.CodeInvalidRequest, message: "Failed to read HTTP request"}
	errBodyTimeout     = &httpError{status: http.StatusRequestTimeout, code: fastmcp.CodeInvalidRequest, message: "Request body timed out"}
	errOverloaded      = coreRefusal(http.StatusServiceUnavailable, fastmcp.ErrOverloaded)
	errUnavailable     = coreRefusal(http.StatusServiceUnavailable, fastmcp.ErrExecutorUnavailable)
	errSubscriptions   = coreRefusal(http.StatusServiceUnavailable, fastmcp.ErrSubscriptionCapacity)
	errShuttingDown    = coreRefusal(http.StatusServiceUnavailable, fastmcp.ErrShuttingDown)
	errRequestTimeout  = coreRefusal(http.StatusGatewayTimeout, fastmcp.ErrRequestTimedOut)
	errGateTimeout     = &httpError{status: http.StatusGatewayTimeout, code: fastmcp.CodeInternalError, message: "Request gate timed out"}
	errGateFailed      = &httpError{status: http.StatusInternalServerError, code: fastmcp.CodeInternalError, message: "Request gate failed"}
	errInternal        = coreRefusal(http.StatusInternalServerError, fastmcp.ErrInternal)
	errAccepted        = &httpError{status: http.StatusAccepted, noBody: true}
	errCancelledNoBody = &httpError{status: http.StatusNoContent, noBody: true}
)

// coreRefusal is the core's wording of a refusal every transport shares, with its HTTP status.
func coreRefusal(status int, e *fastmcp.Error) *httpError {
	return &httpError{status: status, code: e.Code, message: e.Message}
}

// refusals are the HTTP forms of the core's shared refusals.
var refusals = map[*fastmcp.Error]*httpError{
	fastmcp.ErrOverloaded:           errOverloaded,
	fastmcp.ErrExecutorUnavailable:  errUnavailable,
	fastmcp.ErrSubscriptionCapacity: errSubscriptions,
	fastmcp.ErrShuttingDown:         errShuttingDown,
	fastmcp.ErrRequestTimedOut:      errRequestTimeout,
	fastmcp.ErrInternal:             errInternal,
}

// mismatch is a -32020 header error.
func mismatch(message string) *httpError {
	return &httpError{status: http.StatusBadRequest, code: fastmcp.CodeHeaderMismatch, message: message}
}

// appendBody writes the JSON-RPC error body of e with id (nil for null).
func (e *httpError) appendBody(dst, id []byte) []byte {
	if e.noBody {
		return dst
	}
	return decode.AppendError(dst, id, int64(e.code), e.message, nil, false)
}
