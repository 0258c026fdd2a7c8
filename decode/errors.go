package decode

import (
	"errors"
	"strconv"
)

// Code is a JSON-RPC 2.0 error code. The decoder produces only the three codes below; the
// protocol core owns the full table and reuses these values.
type Code int32

// The JSON-RPC codes a decoding failure maps to.
const (
	// CodeParseError: the bytes are not valid JSON under the decoder's rules (syntax, UTF-8,
	// control characters, lone surrogates, trailing data, nesting, number length).
	CodeParseError Code = -32700
	// CodeInvalidRequest: valid JSON that is not a valid JSON-RPC request (envelope shape, id
	// bounds, duplicate envelope keys, batches, oversized messages).
	CodeInvalidRequest Code = -32600
	// CodeInvalidParams: a valid envelope whose params break a decoding rule (params not an
	// object, duplicate keys inside params, progressToken bounds).
	CodeInvalidParams Code = -32602
)

// ErrDecode matches every *Error with errors.Is.
var ErrDecode = errors.New("decode: invalid message")

// Error is a decoding failure: the JSON-RPC code and a message that is safe to show a client.
// A reply to an Error carries the request id only when [Message.IDEchoable] reports true.
type Error struct {
	Code    Code
	Message string
	// Offset is the byte offset in the message where the problem was found (for logs).
	Offset int
}

func (e *Error) Error() string {
	return "decode: " + e.Message + " (code " + strconv.Itoa(int(e.Code)) + ", offset " + strconv.Itoa(e.Offset) + ")"
}

// Is reports whether target is [ErrDecode] or an *Error with the same code.
func (e *Error) Is(target error) bool {
	if target == ErrDecode {
		return true
	}
	var t *Error
	if errors.As(target, &t) {
		return t.Code == e.Code
	}
	return false
}

// rank orders codes by precedence: a parse error beats an invalid request, which beats
// invalid params, so one message always yields the same code whatever its key order.
func (c Code) rank() int {
	switch c {
	case CodeParseError:
		return 3
	case CodeInvalidRequest:
		return 2
	case CodeInvalidParams:
		return 1
	}
	return 0
}

// Messages of the errors the decoder returns. They are part of the wire contract: tests pin them.
const (
	msgSyntax          = "Parse error: invalid JSON"
	msgEmpty           = "Parse error: empty message"
	msgTrailing        = "Parse error: trailing data after the JSON value"
	msgControl         = "Parse error: control character in string"
	msgUTF8            = "Parse error: invalid UTF-8 in string"
	msgSurrogate       = "Parse error: invalid unicode escape (lone surrogate)"
	msgEscape          = "Parse error: invalid escape in string"
	msgDigits          = "Parse error: integer literal exceeds 64 digits"
	msgDepth           = "Parse error: nesting exceeds the maximum depth"
	msgTooLarge        = "Invalid Request: message exceeds the maximum size"
	msgBatch           = "Invalid Request: batch requests are not supported"
	msgNotObject       = "Invalid Request: message must be a JSON object"
	msgVersion         = `Invalid Request: jsonrpc must be "2.0"`
	msgIDType          = "Invalid Request: id must be a string or an integer"
	msgIDString        = "Invalid Request: string id exceeds 256 bytes"
	msgIDRange         = "Invalid Request: integer id is outside the int64 range"
	msgMethodType      = "Invalid Request: method must be a string"
	msgMethodMissing   = "Invalid Request: missing method"
	msgEnvelopeDup     = "Invalid Request: duplicate key in message"
	msgAmbiguous       = "Invalid Request: message has both a method and a result or error"
	msgParamsType      = "Invalid params: params must be an object"
	msgParamsDup       = "Invalid params: duplicate key in params"
	msgTokenType       = "Invalid params: progressToken must be a string or an integer"
	msgTokenString     = "Invalid params: progressToken string exceeds 256 bytes"
	msgTokenRange      = "Invalid params: progressToken integer is outside the int64 range"
	msgTokenFractional = "Invalid params: progressToken must be an integer, not a fraction"
	msgIDFractional    = "Invalid Request: id must be an integer, not a fraction"
)
