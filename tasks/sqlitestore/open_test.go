package sqlitestore_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/sqlitestore"
)

func TestOpenRefusesInvalidConfig(t *testing.T) {
	file := filepath.Join(t.TempDir(), "x.db")
	for name, c := range map[string]struct {
		path string
		cfg  sqlitestore.Config
	}{
		"negative busy timeout": {file, sqlitestore.Config{BusyTimeout: -time.Second}},
		"unknown synchronous":   {file, sqlitestore.Config{Synchronous: "OFF"}},
		"memory":                {":memory:", sqlitestore.Config{}},
		"uri":                   {"file:x.db", sqlitestore.Config{}},
		"empty path":            {"", sqlitestore.Config{}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := sqlitestore.Open(t.Context(), c.path, c.cfg)
			require.ErrorIs(t, err, sqlitestore.ErrInvalidConfig)
		})
	}
}

// TestReopenKeepsTasks: tasks and counters survive closing and opening the file again; the
// schema is created once.
func TestReopenKeepsTasks(t *testing.T) {
	file := filepath.Join(t.TempDir(), "keep.db")
	s, err := sqlitestore.Open(t.Context(), file, sqlitestore.Config{})
	require.NoError(t, err)
	lim := tasks.Limits{MaxTasks: 1}
	require.NoError(t, s.Create(t.Context(), &tasks.Task{ID: "a", Status: tasks.StatusWorking}, lim))
	require.NoError(t, s.Close())

	s, err = sqlitestore.Open(t.Context(), file, sqlitestore.Config{})
	require.NoError(t, err)
	defer s.Close()
	got, err := s.Get(t.Context(), "a")
	require.NoError(t, err)
	assert.Equal(t, tasks.StatusWorking, got.Status)
	var capErr *tasks.CapacityError
	require.ErrorAs(t, s.Create(t.Context(), &tasks.Task{ID: "b", Status: tasks.StatusWorking}, lim), &capErr)
	assert.Equal(t, "MaxTasks", capErr.Limit)
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	file := filepath.Join(t.TempDir(), "newer.db")
	s, err := sqlitestore.Open(t.Context(), file, sqlitestore.Config{})
	require.NoError(t, err)
	_, err = s.DB().ExecContext(t.Context(), `PRAGMA user_version = 99`)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	_, err = sqlitestore.Open(t.Context(), file, sqlitestore.Config{})
	require.ErrorContains(t, err, "schema version 99 is newer")
}

func TestWALMode(t *testing.T) {
	s, err := sqlitestore.Open(t.Context(), filepath.Join(t.TempDir(), "wal.db"), sqlitestore.Config{})
	require.NoError(t, err)
	defer s.Close()
	var mode string
	require.NoError(t, s.DB().QueryRowContext(t.Context(), `PRAGMA journal_mode`).Scan(&mode))
	assert.Equal(t, "wal", mode)
}
