package streamable

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// Every refusal the core words for all transports has its HTTP form, with the core's code and
// message and the status the package doc gives.
func TestCoreRefusalsStatus(t *testing.T) {
	want := map[*fastmcp.Error]int{
		fastmcp.ErrOverloaded:           http.StatusServiceUnavailable,
		fastmcp.ErrExecutorUnavailable:  http.StatusServiceUnavailable,
		fastmcp.ErrSubscriptionCapacity: http.StatusServiceUnavailable,
		fastmcp.ErrShuttingDown:         http.StatusServiceUnavailable,
		fastmcp.ErrRequestTimedOut:      http.StatusGatewayTimeout,
		fastmcp.ErrInternal:             http.StatusInternalServerError,
	}
	require.Len(t, refusals, len(want))
	for e, status := range want {
		h := refusals[e]
		require.NotNil(t, h, e.Message)
		assert.Equal(t, status, h.status, e.Message)
		assert.Equal(t, e.Code, h.code, e.Message)
		assert.Equal(t, e.Message, h.message)
	}
}
