package sqlitestore_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks/sqlitestore"
)

// TestFloor: the floor inserts plain rows into a table of its own (a taken id is refused,
// as a primary key does) and drops it.
func TestFloor(t *testing.T) {
	s, err := sqlitestore.Open(t.Context(), filepath.Join(t.TempDir(), "floor.db"), sqlitestore.Config{})
	require.NoError(t, err)
	defer s.Close()
	insert, drop, err := s.Floor(t.Context())
	require.NoError(t, err)
	require.NoError(t, insert(t.Context(), "a", []byte(`{"x":1}`)))
	require.Error(t, insert(t.Context(), "a", nil), "the id is the primary key")
	require.NoError(t, drop(t.Context()))
	require.Error(t, insert(t.Context(), "b", nil), "the table is gone")
}
