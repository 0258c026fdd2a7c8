package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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
	// ErrTooManyResumes: a legacy request's event stream ended before its response more than
	// 5 times, each resumed with GET and Last-Event-ID.
	ErrTooManyResumes = errors.New("client: the event stream kept ending before its response")
	// ErrMalformed: the server sent something that is not a valid response.
	ErrMalformed = errors.New("client: malformed response")

	// ErrMissingCapability matches every -32021 *Error: the request lacked a client
	// capability the server requires (data.requiredCapabilities names it).
	ErrMissingCapability = errors.New("client: the server requires a client capability the request did not declare")
	// ErrTasksRequired matches a -32021 *Error whose data.requiredCapabilities names the
	// tasks extension: the tool runs only as a task, so call it with Client.CallToolTask.
	ErrTasksRequired = errors.New("client: the server requires the tasks extension (io.modelcontextprotocol/tasks)")
	// ErrUnknownTask: tasks/get, tasks/update or tasks/cancel was answered -32602, the
	// server's answer for a task that does not exist, has expired, or belongs to another
	// principal. The *Error is wrapped too.
	ErrUnknownTask = errors.New("client: unknown task")
	// ErrTasksNotDefined: a tasks/* request on an initialize-era connection, where the tasks
	// extension does not exist (a CallToolTask there is a plain call and never a task).
	ErrTasksNotDefined = errors.New("client: tasks are not defined on an initialize-era connection")
	// ErrTaskFailed: the task ended failed; the task's JSON-RPC *Error is wrapped too
	// (TaskDetail.Err).
	ErrTaskFailed = errors.New("client: task failed")
	// ErrTaskCancelled: the task ended cancelled (TaskDetail.Err).
	ErrTaskCancelled = errors.New("client: task cancelled")
)

// Error is a JSON-RPC error the server returned.
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string {
	if len(e.Data) > 0 {
		return fmt.Sprintf("mcp error %d: %s (data %s)", e.Code, e.Message, e.Data)
	}
	return fmt.Sprintf("mcp error %d: %s", e.Code, e.Message)
}

// Is lets errors.Is match e against the sentinels that name codes: [ErrMissingCapability]
// (any -32021) and [ErrTasksRequired] (a -32021 naming the tasks extension).
func (e *Error) Is(target error) bool {
	switch target {
	case ErrMissingCapability:
		return e.Code == CodeMissingCapability
	case ErrTasksRequired:
		return e.Code == CodeMissingCapability && requiresTasks(e.Data)
	}
	return false
}

// JSON-RPC and MCP error codes the client acts on.
const (
	CodeMethodNotFound     = -32601
	CodeInvalidParams      = -32602
	CodeHeaderMismatch     = -32020
	CodeMissingCapability  = -32021
	CodeUnsupportedVersion = -32022
)

// HTTPError is a non-2xx HTTP response. Every such response is one, whatever its body:
// Status is the HTTP status, Body the first 512 bytes of the body, and Err the JSON-RPC
// error the body carried, if it was one (a modern server's 400 -32022, a session's 404 with
// a JSON-RPC error): errors.As finds both the *HTTPError and that *Error.
type HTTPError struct {
	Status int
	Body   []byte
	Err    *Error

	// rpc is the whole JSON body, kept until the core has read the JSON-RPC error from it.
	rpc []byte
}

func (e *HTTPError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("client: HTTP %d: %v", e.Status, e.Err)
	}
	return fmt.Sprintf("client: HTTP %d: %q", e.Status, e.Body)
}

// Unwrap returns the JSON-RPC error of the body, if any.
func (e *HTTPError) Unwrap() error {
	if e.Err == nil {
		return nil
	}
	return e.Err
}

// opError says what the client was doing when err happened, without repeating the
// "client: " its text starts with when it is the client's own.
type opError struct {
	op  string
	err error
}

func (e *opError) Error() string {
	return "client: " + e.op + ": " + strings.TrimPrefix(e.err.Error(), "client: ")
}

func (e *opError) Unwrap() error { return e.err }

// httpStatus is the HTTP status of a response err reports (0: none, or not over HTTP).
func httpStatus(err error) int {
	var he *HTTPError
	if errors.As(err, &he) {
		return he.Status
	}
	return 0
}
