package sqlitestore_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks/sqlitestore"
	"github.com/fastmcp-go/fastmcp/tasks/storetest"
)

// TestFloor: the floor inserts plain rows into a table of its own and drops it.
func TestFloor(t *testing.T) {
	s, err := sqlitestore.Open(t.Context(), filepath.Join(t.TempDir(), "floor.db"), sqlitestore.Config{})
	require.NoError(t, err)
	defer s.Close()
	storetest.RunFloor(t, s.Floor)
}
