package tasks

import (
	"context"
	"sync/atomic"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// runState is what a run's handler can tell the runner (see RetryLater).
type runState struct {
	attempt int
	retry   atomic.Bool // a handler's Timeout wrapper may let it outlive the run
}

type runKey struct{}

// RetryLater asks, from a task's handler, for the work to run again after the next delay of
// Options.Retry; it returns the error the handler returns. Once the delays are used up the
// task fails with a -32603 error carrying message. Outside a task it only returns the error.
func RetryLater(ctx context.Context, message string) error {
	if rs, ok := ctx.Value(runKey{}).(*runState); ok {
		rs.retry.Store(true)
	}
	return fastmcp.NewError(fastmcp.CodeInternalError, message, nil)
}
