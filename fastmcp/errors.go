package fastmcp

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/fastmcp-go/fastmcp/decode"
)

// Code is a JSON-RPC error code. Every code the server emits is in the table below.
type Code = decode.Code

// The JSON-RPC and MCP error codes, with what each one means here.
const (
	// CodeParseError: the message is not valid JSON under the decoder's rules.
	CodeParseError = decode.CodeParseError
	// CodeInvalidRequest: not a valid JSON-RPC request (envelope, id bounds, batch, duplicate
	// in-flight id, an input request method sent as a request).
	CodeInvalidRequest = decode.CodeInvalidRequest
	// CodeMethodNotFound: unknown or removed method (initialize, ping, logging/setLevel, …), or
	// a method whose capability the server does not advertise. For initialize, data names the
	// versions served and the one offered: {"supported":["2026-07-28"],"requested":"2025-11-25"}.
	// Streamable HTTP answers it with 404.
	CodeMethodNotFound Code = -32601
	// CodeInvalidParams: missing or invalid request _meta, unknown tool or prompt, resource not
	// found (data.uri; -32002 in the initialize-era dialects), bad cursor, bad logLevel,
	// tampered or expired requestState, malformed input responses; in the initialize-era
	// dialects also malformed initialize params, an invalid logging/setLevel level, and the
	// multi round-trip params (inputResponses, requestState), which those revisions lack.
	CodeInvalidParams = decode.CodeInvalidParams
	// CodeInternalError: a handler panicked or produced an invalid result, capacity was
	// exhausted, execution timed out, or an authorization policy failed.
	CodeInternalError Code = -32603
	// CodeHeaderMismatch: an HTTP header that mirrors the body is missing, malformed or
	// different from the body (Streamable HTTP only).
	CodeHeaderMismatch Code = -32020
	// CodeMissingCapability: the request needs a client capability it did not declare;
	// data.requiredCapabilities is a ClientCapabilities object.
	CodeMissingCapability Code = -32021
	// CodeUnsupportedVersion: the requested protocol version is not served; data has
	// supported and requested.
	CodeUnsupportedVersion Code = -32022
	// CodeResourceNotFound: resources/read of a URI nothing serves, in the initialize-era
	// dialects (2026-07-28 answers -32602); data.uri names it.
	CodeResourceNotFound Code = -32002
)

// Error is a JSON-RPC error: the code, a one-sentence message and optional data. Handlers
// return one to answer with a protocol error instead of a result; any other error from a tool
// handler becomes an isError tool result.
type Error struct {
	Code    Code
	Message string
	// Data is a JSON value, or nil.
	Data json.RawMessage

	// admission marks errors about the request envelope itself (missing _meta, …), which
	// Streamable HTTP answers with 400 rather than 200.
	admission bool
	// unavailable marks refusals for want of capacity, which Streamable HTTP answers with
	// 503, as the transports' own overload errors.
	unavailable bool
}

// Admission reports whether e refuses the request itself rather than answering an otherwise
// valid request: the message did not decode, or its request metadata is missing or invalid
// (an unknown version, a missing capability). A transport reads it with the Code to choose
// a status of its own: Streamable HTTP answers invalid params of admission with 400, other
// invalid params with 200.
func (e *Error) Admission() bool { return e.admission }

// Unavailable reports whether e refuses the request for want of capacity: subscriptions/listen
// past [Config.MaxSubscriptionBytes], or while the server shuts down. Streamable HTTP answers
// it with 503, as its own overload errors.
func (e *Error) Unavailable() bool { return e.unavailable }

func (e *Error) Error() string {
	return "fastmcp: " + e.Message + " (" + strconv.Itoa(int(e.Code)) + ")"
}

// Is reports whether target is an *Error with the same code, so errors.Is(err, ErrInvalidParams)
// holds for any invalid-params error.
func (e *Error) Is(target error) bool {
	var t *Error
	return e != nil && errors.As(target, &t) && t != nil && t.Code == e.Code
}

// Sentinels for errors.Is, one per code.
var (
	ErrParse               = &Error{Code: CodeParseError, Message: "Parse error"}
	ErrInvalidRequest      = &Error{Code: CodeInvalidRequest, Message: "Invalid Request"}
	ErrMethodNotFound      = &Error{Code: CodeMethodNotFound, Message: "Method not found"}
	ErrInvalidParams       = &Error{Code: CodeInvalidParams, Message: "Invalid params"}
	ErrInternal            = &Error{Code: CodeInternalError, Message: "Internal error"}
	ErrHeaderMismatch      = &Error{Code: CodeHeaderMismatch, Message: "Header mismatch"}
	ErrMissingCapability   = &Error{Code: CodeMissingCapability, Message: "Missing required client capability"}
	ErrUnsupportedVersion  = &Error{Code: CodeUnsupportedVersion, Message: "Unsupported protocol version"}
	errInputNotPermitted   = &Error{Code: CodeInternalError, Message: "Input-required result is not permitted for this operation"}
	errInvalidState        = &Error{Code: CodeInvalidParams, Message: "Invalid or expired request state"}
	errToolPanicked        = &Error{Code: CodeInternalError, Message: "Tool raised an exception"}
	errHandlerPanicked     = &Error{Code: CodeInternalError, Message: "Handler raised an exception"}
	errInvalidResult       = &Error{Code: CodeInternalError, Message: "Server produced an invalid result"}
	errOutputSchema        = &Error{Code: CodeInternalError, Message: "Tool output failed schema validation"}
	errPolicyFault         = &Error{Code: CodeInternalError, Message: "Authorization policy failed"}
	errMissingMeta         = &Error{Code: CodeInvalidParams, Message: "Missing required request metadata: io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities", admission: true}
	errInvalidMeta         = &Error{Code: CodeInvalidParams, Message: "_meta contains an invalid key or value", admission: true}
	errInvalidLogLevel     = &Error{Code: CodeInvalidParams, Message: "Invalid log level", admission: true}
	errInvalidCursor       = &Error{Code: CodeInvalidParams, Message: "Invalid pagination cursor"}
	errExpiredCursor       = &Error{Code: CodeInvalidParams, Message: "Pagination cursor has expired"}
	errInputRequestAsTopLv = &Error{Code: CodeInvalidRequest, Message: "Invalid Request: input request methods are only valid inside inputRequests"}
)

// NewError returns an *Error with the given code, message and data (a JSON value or nil).
func NewError(code Code, message string, data json.RawMessage) *Error {
	return &Error{Code: code, Message: message, Data: data}
}

// asError converts any error to the *Error a client sees. Unknown errors become a generic
// internal error: their text never reaches the wire. A nil *Error (a handler that returned a
// typed nil as its error) is a server bug, answered like an invalid result.
func asError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		if e == nil {
			return errInvalidResult
		}
		return e
	}
	var de *decode.Error
	if errors.As(err, &de) {
		// Decoding failures are about the request itself: Streamable HTTP answers them with 400.
		return &Error{Code: de.Code, Message: de.Message, admission: true}
	}
	return ErrInternal
}
