package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks/memstore"
	"github.com/fastmcp-go/fastmcp/tasks/sqlitestore"
)

func TestOpenTaskStore(t *testing.T) {
	store, cleanup, err := openTaskStore("memory", false)
	require.NoError(t, err)
	assert.IsType(t, &memstore.Store{}, store)
	require.NoError(t, store.Close())
	cleanup()

	path := filepath.Join(t.TempDir(), "kept.db")
	store, cleanup, err = openTaskStore("sqlite:"+path, false)
	require.NoError(t, err)
	assert.IsType(t, &sqlitestore.Store{}, store)
	require.NoError(t, store.Close())
	cleanup()
	assert.FileExists(t, path, "a named file outlives the process")

	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	store, cleanup, err = openTaskStore("sqlite", false)
	require.NoError(t, err)
	dirs, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.Len(t, dirs, 1, "the default file lives in a temporary directory of its own")
	require.NoError(t, store.Close())
	cleanup()
	dirs, err = os.ReadDir(tmp)
	require.NoError(t, err)
	assert.Empty(t, dirs, "removed at exit")

	for _, bad := range []struct {
		spec    string
		migrate bool
	}{{"memory:x", false}, {"postgres", false}, {"redis", false}, {"memory", true}, {"sqlite", true}} {
		_, _, err := openTaskStore(bad.spec, bad.migrate)
		var ue usageError
		require.ErrorAs(t, err, &ue, "%+v", bad)
	}
	_, _, err = openTaskStore("postgres:postgres://nobody@127.0.0.1:1/none?connect_timeout=1", false)
	require.Error(t, err, "no server there")
}
