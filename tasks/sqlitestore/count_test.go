package sqlitestore_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/sqlitestore"
	"github.com/fastmcp-go/fastmcp/tasks/storetest"
)

func TestCountByStatus(t *testing.T) {
	storetest.RunCount(t, func(t *testing.T) tasks.Store {
		clock := storetest.NewFakeClock()
		s, err := sqlitestore.Open(t.Context(), filepath.Join(t.TempDir(), "tasks.db"), sqlitestore.Config{Now: clock.Now})
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, s.Close()) })
		return storetest.Timed(s, clock)
	})
}
