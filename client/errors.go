package client

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Errors a call can end with; test with errors.Is.
var (
	// ErrNotImplemented: the operation is not built yet in this client.
	ErrNotImplemented = errors.New("client: not implemented")
	// ErrClosed: the Client was closed.
	ErrClosed = errors.New("client: closed")
	// ErrResponseTooLarge: a response exceeded Config.MaxResponseBytes.
	ErrResponseTooLarge = errors.New("client: response exceeds MaxResponseBytes")
	// ErrTooManyPages: a List call followed more than Config.MaxPages pages.
	ErrTooManyPages = errors.New("client: list exceeds MaxPages")
	// ErrRepeatedCursor: a server returned a cursor it had already returned.
	ErrRepeatedCursor = errors.New("client: list repeated a cursor")
	// ErrTooManyRounds: a call asked for input more than Config.MaxInputRounds times.
	ErrTooManyRounds = errors.New("client: call exceeds MaxInputRounds")
	// ErrNoHandler: the server asked for input no configured handler answers.
	ErrNoHandler = errors.New("client: no handler for input request")
	// ErrPoolTimeout: every pooled connection stayed busy until the request's deadline.
	ErrPoolTimeout = errors.New("client: timed out waiting for a pooled connection")
	// ErrMalformed: the server sent something that is not a valid response.
	ErrMalformed = errors.New("client: malformed response")
)

// Error is a JSON-RPC error the server returned.
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
	// HTTPStatus is the response's status code over HTTP (0 elsewhere).
	HTTPStatus int `json:"-"`
}

func (e *Error) Error() string {
	if len(e.Data) > 0 {
		return fmt.Sprintf("mcp error %d: %s (data %s)", e.Code, e.Message, e.Data)
	}
	return fmt.Sprintf("mcp error %d: %s", e.Code, e.Message)
}

// JSON-RPC and MCP error codes the client acts on.
const (
	CodeMethodNotFound     = -32601
	CodeInvalidParams      = -32602
	CodeHeaderMismatch     = -32020
	CodeMissingCapability  = -32021
	CodeUnsupportedVersion = -32022
)

// HTTPError is a non-2xx HTTP response whose body is not a JSON-RPC error.
type HTTPError struct {
	Status int
	Body   []byte // at most the first 512 bytes
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("client: HTTP %d: %q", e.Status, e.Body)
}
