package sqlitestore_test

import (
	"context"
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

// TestQueuedWriteHonoursContext: a write queued behind another (itself waiting for a lock
// held elsewhere) gives up as soon as its context ends.
func TestQueuedWriteHonoursContext(t *testing.T) {
	file := filepath.Join(t.TempDir(), "queue.db")
	s, err := sqlitestore.Open(t.Context(), file, sqlitestore.Config{BusyTimeout: time.Minute})
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

	first := make(chan error, 1)
	go func() {
		first <- s.Create(context.Background(), &tasks.Task{ID: "first", Status: tasks.StatusWorking}, tasks.Limits{})
	}()
	ctx, cancel := context.WithCancel(t.Context())
	second := make(chan error, 1)
	go func() {
		second <- s.Create(ctx, &tasks.Task{ID: "second", Status: tasks.StatusWorking}, tasks.Limits{})
	}()
	cancel()
	select {
	case err := <-second:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(30 * time.Second):
		t.Fatal("the cancelled write still waits")
	}
	_, err = conn.ExecContext(t.Context(), `ROLLBACK`)
	require.NoError(t, err)
	require.NoError(t, <-first)
}
