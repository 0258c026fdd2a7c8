package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks/memstore"
	"github.com/fastmcp-go/fastmcp/tasks/sqlitestore"
	"github.com/fastmcp-go/fastmcp/tasks/storetest"
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

// readOnlyTaskFile is a task database this process cannot write (root included).
func readOnlyTaskFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ro.db")
	store, err := sqlitestore.Open(t.Context(), path, sqlitestore.Config{})
	require.NoError(t, err)
	require.NoError(t, store.Close())
	storetest.ReadOnly(t, path)
	return path
}

// readOnlyCause is the end of the refusal: EACCES for a user, EPERM for root on an
// immutable file.
const readOnlyCause = "(permission denied|operation not permitted)"

func TestOpenTaskStoreRefusesReadOnlyFile(t *testing.T) {
	path := readOnlyTaskFile(t)
	_, _, err := openTaskStore("sqlite:"+path, false)
	require.ErrorIs(t, err, sqlitestore.ErrReadOnly)
	assert.Regexp(t, "^"+regexp.QuoteMeta("--tasks-store: sqlitestore: "+path+" is read-only: ")+readOnlyCause+"$", err.Error())
}

// testServeReadOnlyTasks: serve refuses to start on a task database it cannot write (exit
// 2, nothing on stdout) rather than start and refuse every task.
func testServeReadOnlyTasks(t *testing.T, bin string) {
	path := readOnlyTaskFile(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "serve", "--addr", "127.0.0.1:0", "--tasks-store", "sqlite:"+path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "stdout: %s", stdout.String())
	assert.Equal(t, 2, ee.ExitCode())
	assert.Regexp(t, "^"+regexp.QuoteMeta("serve: --tasks-store: sqlitestore: "+path+" is read-only: ")+readOnlyCause+"\n$", stderr.String())
	assert.Empty(t, stdout.String())
}
