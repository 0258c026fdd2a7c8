package pgstore_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/pgstore"
	"github.com/fastmcp-go/fastmcp/tasks/storetest"
)

// TestCountByStatus needs FASTMCP_TEST_POSTGRES, like the contract.
func TestCountByStatus(t *testing.T) {
	pool := sharedPool(t)
	storetest.RunCount(t, func(t *testing.T) tasks.Store {
		s, err := pgstore.Open(t.Context(), pool)
		require.NoError(t, err)
		return storetest.Timed(s, dbClock{t, pool})
	})
}
