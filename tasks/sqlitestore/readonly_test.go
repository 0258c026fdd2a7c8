package sqlitestore_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/sqlitestore"
	"github.com/fastmcp-go/fastmcp/tasks/storetest"
)

// TestOpenRefusesReadOnlyFile: a database file this process cannot write is refused at
// Open, naming the file and the cause, instead of opening a store whose every write fails;
// nothing is left behind (no -wal or -shm file), and the file opens again once writable.
func TestOpenRefusesReadOnlyFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ro.db")
	s, err := sqlitestore.Open(t.Context(), file, sqlitestore.Config{})
	require.NoError(t, err)
	require.NoError(t, s.Create(t.Context(), &tasks.Task{ID: "kept", Status: tasks.StatusWorking}, tasks.Limits{}))
	require.NoError(t, s.Close())
	before, err := os.ReadFile(file)
	require.NoError(t, err)

	t.Run("read-only", func(t *testing.T) {
		storetest.ReadOnly(t, file)
		_, err := sqlitestore.Open(t.Context(), file, sqlitestore.Config{})
		require.ErrorIs(t, err, sqlitestore.ErrReadOnly)
		// EACCES for a user, EPERM for root on an immutable file.
		assert.Regexp(t, "^"+regexp.QuoteMeta("sqlitestore: "+file+" is read-only: ")+"(permission denied|operation not permitted)$", err.Error())
		after, rerr := os.ReadFile(file)
		require.NoError(t, rerr)
		assert.Equal(t, before, after, "the refused open changed nothing")
		assert.NoFileExists(t, file+"-wal")
		assert.NoFileExists(t, file+"-shm")
	})

	// A writable file whose -wal file is not (left by another user's read): SQLite's own
	// refusal, at Open's first transaction, reads the same.
	t.Run("read-only WAL", func(t *testing.T) {
		require.NoError(t, os.WriteFile(file+"-wal", nil, 0o644))
		t.Cleanup(func() { _ = os.Remove(file + "-wal"); _ = os.Remove(file + "-shm") })
		storetest.ReadOnly(t, file+"-wal")
		_, err := sqlitestore.Open(t.Context(), file, sqlitestore.Config{})
		require.ErrorIs(t, err, sqlitestore.ErrReadOnly)
		assert.EqualError(t, err, "sqlitestore: "+file+" is read-only: attempt to write a readonly database (8)")
		after, rerr := os.ReadFile(file)
		require.NoError(t, rerr)
		assert.Equal(t, before, after)
	})

	s, err = sqlitestore.Open(t.Context(), file, sqlitestore.Config{})
	require.NoError(t, err, "writable again")
	defer s.Close()
	got, err := s.Get(t.Context(), "kept")
	require.NoError(t, err)
	assert.Equal(t, tasks.StatusWorking, got.Status)
}
