package tasks

import (
	"strconv"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// The errors a client sees.
var (
	// errUnknownTask answers a taskId the caller's scope has no live task for (never
	// created, another principal's, expired, or longer than MaxTaskIDBytes).
	errUnknownTask = fastmcp.NewError(fastmcp.CodeInvalidParams, "Invalid params: unknown task", nil)
	errTaskIDType  = fastmcp.NewError(fastmcp.CodeInvalidParams, "Invalid params: taskId must be a string", nil)
	errResponses   = fastmcp.NewError(fastmcp.CodeInvalidParams, "Invalid params: inputResponses must be an object", nil)
	errListenIDs   = fastmcp.NewError(fastmcp.CodeInvalidParams, "Invalid params: notifications.taskIds must be an array of task ids", nil)
	errListenMany  = fastmcp.NewError(fastmcp.CodeInvalidParams, "Invalid params: notifications.taskIds lists more than "+strconv.Itoa(MaxListenTaskIDs)+" task ids", nil)
	errStore       = fastmcp.NewError(fastmcp.CodeInternalError, "Task store unavailable", nil)
	errRuntime     = fastmcp.NewError(fastmcp.CodeInternalError, "Task exceeded its maximum runtime", nil)
	errReasked     = fastmcp.NewError(fastmcp.CodeInternalError, "Task asked again for input it was given", nil)
	// errPolicyPanicked answers a call whose task Policy panicked.
	errPolicyPanicked = fastmcp.NewError(fastmcp.CodeInternalError, "Task policy raised an exception", nil)
)

// capacityError is the refusal of a call at a store limit.
func capacityError(limit string) *fastmcp.Error {
	return fastmcp.NewError(fastmcp.CodeInternalError, "Task capacity exhausted",
		[]byte(`{"retryable":true,"limit":`+strconv.Quote(limit)+`}`))
}

// workTooLarge refuses a call, or a tasks/update, that would take the work input past
// MaxWorkInputBytes.
func workTooLarge(limit int) *fastmcp.Error {
	return fastmcp.NewError(fastmcp.CodeInvalidParams, "Invalid params: task work input exceeds "+strconv.Itoa(limit)+" bytes", nil)
}
