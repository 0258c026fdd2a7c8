package pgstore_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks/pgstore"
)

// TestFloor: the floor inserts plain rows into a table of its own (a taken id is refused,
// as a primary key does) and drops it.
func TestFloor(t *testing.T) {
	pool := newDatabase(t)
	require.NoError(t, pgstore.Migrate(t.Context(), pool))
	s, err := pgstore.Open(t.Context(), pool)
	require.NoError(t, err)
	insert, drop, err := s.Floor(t.Context())
	require.NoError(t, err)
	require.NoError(t, insert(t.Context(), "a", []byte(`{"x":1}`)))
	require.Error(t, insert(t.Context(), "a", nil), "the id is the primary key")
	require.NoError(t, drop(t.Context()))
	require.Error(t, insert(t.Context(), "b", nil), "the table is gone")
}
