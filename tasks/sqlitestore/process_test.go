package sqlitestore_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/sqlitestore"
	"github.com/fastmcp-go/fastmcp/tasks/storetest"
)

// worker is the test binary re-executed as a worker process on a shared database file.
var worker = storetest.Worker{
	Env: "FASTMCP_SQLITESTORE_WORKER",
	Open: func(ctx context.Context, file string) (tasks.Store, error) {
		return sqlitestore.Open(ctx, file, sqlitestore.Config{})
	},
}

// helperProcess runs the worker when this process is one, and reports whether it was.
func helperProcess() bool { return worker.Main() }

// TestProcesses: worker processes share one database file with this one; this process's
// store is on the real clock, as theirs are, moved on past their leases.
func TestProcesses(t *testing.T) {
	storetest.RunProcesses(t, worker, func(t *testing.T) (string, tasks.Store) {
		file := filepath.Join(t.TempDir(), "shared.db")
		clock := &storetest.WallClock{}
		s, err := sqlitestore.Open(t.Context(), file, sqlitestore.Config{Now: clock.Now})
		require.NoError(t, err)
		return file, storetest.Timed(s, clock)
	})
}
