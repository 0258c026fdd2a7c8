package pgstore_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks/pgstore"
	"github.com/fastmcp-go/fastmcp/tasks/storetest"
)

// TestFloor: the floor inserts plain rows into a table of its own and drops it.
func TestFloor(t *testing.T) {
	pool := newDatabase(t)
	require.NoError(t, pgstore.Migrate(t.Context(), pool))
	s, err := pgstore.Open(t.Context(), pool)
	require.NoError(t, err)
	storetest.RunFloor(t, s.Floor)
}
