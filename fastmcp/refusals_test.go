package fastmcp_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/pool"
)

// One table for every transport: what the executor's refusals and outcomes look like on the
// wire.
func TestRefusals(t *testing.T) {
	submits := []struct {
		err  error
		want *fastmcp.Error
	}{
		{pool.ErrOverloaded, fastmcp.ErrOverloaded},
		{pool.ErrClosed, fastmcp.ErrExecutorUnavailable},
		{pool.ErrDuplicateKey, fastmcp.ErrInternal},
		{errors.New("other"), fastmcp.ErrInternal},
	}
	for _, tc := range submits {
		assert.Same(t, tc.want, fastmcp.SubmitError(tc.err), "%v", tc.err)
	}
	outcomes := []struct {
		name string
		r    pool.Result
		want *fastmcp.Error
	}{
		{"timed out", pool.Result{Outcome: pool.TimedOut, Err: pool.ErrTimeout}, fastmcp.ErrRequestTimedOut},
		{"cancelled by the client", pool.Result{Outcome: pool.Cancelled, Err: context.Canceled}, nil},
		{"executor closed", pool.Result{Outcome: pool.Cancelled, Err: pool.ErrClosed}, fastmcp.ErrExecutorUnavailable},
		{"panicked", pool.Result{Outcome: pool.Failed, Err: errors.New("panic")}, fastmcp.ErrInternal},
	}
	for _, tc := range outcomes {
		assert.Same(t, tc.want, fastmcp.OutcomeError(tc.r), tc.name)
	}
	assert.Equal(t, "Server execution capacity exhausted", fastmcp.ErrOverloaded.Message)
	assert.Equal(t, "Request execution timed out", fastmcp.ErrRequestTimedOut.Message)
	assert.Equal(t, "Request executor unavailable", fastmcp.ErrExecutorUnavailable.Message)
	for _, e := range []*fastmcp.Error{fastmcp.ErrOverloaded, fastmcp.ErrExecutorUnavailable, fastmcp.ErrShuttingDown, fastmcp.ErrSubscriptionCapacity} {
		assert.True(t, e.Unavailable(), e.Message)
		assert.Equal(t, fastmcp.CodeInternalError, e.Code)
	}
}
