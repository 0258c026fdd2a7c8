package sqlitestore_test

import (
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/sqlitestore"
)

// TestBusyTimeout: while another connection (another process, to SQLite) holds the file's
// write lock, a write waits BusyTimeout and then fails with SQLITE_BUSY; it succeeds once
// the lock is gone.
func TestBusyTimeout(t *testing.T) {
	file := filepath.Join(t.TempDir(), "busy.db")
	s, err := sqlitestore.Open(t.Context(), file, sqlitestore.Config{BusyTimeout: 50 * time.Millisecond})
	require.NoError(t, err)
	defer s.Close()

	other, err := sql.Open("sqlite", "file:"+file)
	require.NoError(t, err)
	defer other.Close()
	conn, err := other.Conn(t.Context())
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.ExecContext(t.Context(), `BEGIN IMMEDIATE`)
	require.NoError(t, err)

	start := time.Now()
	err = s.Create(t.Context(), &tasks.Task{ID: "a", Status: tasks.StatusWorking}, tasks.Limits{})
	waited := time.Since(start)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "database is locked (5) (SQLITE_BUSY)")
	assert.GreaterOrEqual(t, waited, 50*time.Millisecond, "it waited for the lock")

	_, err = conn.ExecContext(t.Context(), `ROLLBACK`)
	require.NoError(t, err)
	require.NoError(t, s.Create(t.Context(), &tasks.Task{ID: "a", Status: tasks.StatusWorking}, tasks.Limits{}))
}
