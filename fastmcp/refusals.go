package fastmcp

import (
	"errors"

	"github.com/fastmcp-go/fastmcp/pool"
)

// The errors a transport answers itself, when the executor refuses a request or a request
// ends without a reply of its own. Every transport words them alike; Streamable HTTP gives
// each its status (503 for the unavailable ones, 504 for the timeout, 500 otherwise), stdio
// writes them as they are.
var (
	// ErrOverloaded: every worker is busy and the queue is full (or there is none).
	ErrOverloaded = &Error{Code: CodeInternalError, Message: "Server execution capacity exhausted", unavailable: true}
	// ErrExecutorUnavailable: the executor is closed, so nothing more can run.
	ErrExecutorUnavailable = &Error{Code: CodeInternalError, Message: "Request executor unavailable", unavailable: true}
	// ErrShuttingDown: the server is draining and takes no new work.
	ErrShuttingDown = errShuttingDown
	// ErrSubscriptionCapacity: the listen streams' count or byte budget is exhausted.
	ErrSubscriptionCapacity = errSubscriptions
	// ErrRequestTimedOut: the request's deadline passed, queueing included.
	ErrRequestTimedOut = &Error{Code: CodeInternalError, Message: "Request execution timed out"}
)

// SubmitError is the error a client sees when the executor refuses its request with err.
func SubmitError(err error) *Error {
	switch {
	case errors.Is(err, pool.ErrOverloaded):
		return ErrOverloaded
	case errors.Is(err, pool.ErrClosed):
		return ErrExecutorUnavailable
	}
	return ErrInternal
}

// OutcomeError is the error a client sees for a request whose job ended with r and no reply
// of its own: nil for a cancelled request (the client went away or cancelled it: nobody is
// answered), unless the executor closed under it.
func OutcomeError(r pool.Result) *Error {
	switch {
	case r.Outcome == pool.TimedOut || errors.Is(r.Err, pool.ErrTimeout):
		return ErrRequestTimedOut
	case r.Outcome == pool.Cancelled && errors.Is(r.Err, pool.ErrClosed):
		return ErrExecutorUnavailable
	case r.Outcome == pool.Cancelled:
		return nil
	}
	return ErrInternal
}
