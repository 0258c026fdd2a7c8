package stdio

import (
	"errors"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

var (
	// ErrInvalidConfig is wrapped by the error Serve returns for an invalid [Config].
	ErrInvalidConfig = errors.New("stdio: invalid config")

	// ErrWriteTimeout is wrapped by the error Serve returns when one write to Output took
	// longer than [Config.WriteTimeout]. When the deadline was set on Output itself, the
	// error also wraps Output's own deadline error (os.ErrDeadlineExceeded).
	ErrWriteTimeout = errors.New("stdio: write timed out")

	// ErrStdoutInUse is returned by Serve when it would take the process's standard output
	// (Output is nil) while another Serve call has it.
	ErrStdoutInUse = errors.New("stdio: standard output is already serving")

	// errOutputClosed is what a request's sink reports after the connection stopped writing
	// (a terminal failure or the end of Serve).
	errOutputClosed = errors.New("stdio: output closed")
	// errRequestDone is what a request's sink reports once the request has its response or
	// was cancelled: nothing more is written for it.
	errRequestDone = errors.New("stdio: request already answered or cancelled")
	// errCancelledByClient is the reason a job cancelled by notifications/cancelled gets.
	errCancelledByClient = errors.New("stdio: cancelled by the client")
)

// errDuplicateID refuses a request whose id is in flight on the connection.
var errDuplicateID = fastmcp.NewError(fastmcp.CodeInvalidRequest, "Duplicate in-flight request id", nil)

// The errors this transport writes itself besides the refusals every transport shares
// (fastmcp.SubmitError, fastmcp.OutcomeError), and the protocol core's. Messages are part of
// the wire contract; tests pin them.
const (
	msgLineTooLong = "Invalid Request: message exceeds the maximum size"
	msgReadFailed  = "Parse error: failed to read input"

	codeInvalidRequest = int64(fastmcp.CodeInvalidRequest)
	codeInternal       = int64(fastmcp.CodeInternalError)
	codeParse          = int64(fastmcp.CodeParseError)
)
