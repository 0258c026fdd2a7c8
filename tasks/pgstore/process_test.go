package pgstore_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/pgstore"
	"github.com/fastmcp-go/fastmcp/tasks/storetest"
)

// worker is the test binary re-executed as a worker process on a shared database, named
// by its DSN.
var worker = storetest.Worker{
	Env: "FASTMCP_PGSTORE_WORKER",
	Open: func(ctx context.Context, dsn string) (tasks.Store, error) {
		pool, err := pgxpool.New(ctx, dsn)
		if err != nil {
			return nil, err
		}
		// The pool lives as long as the worker process.
		return pgstore.Open(ctx, pool)
	},
}

// helperProcess runs the worker when this process is one, and reports whether it was.
func helperProcess() bool { return worker.Main() }

// TestProcesses: worker processes share a fresh migrated database with this one, on the
// database's clock.
func TestProcesses(t *testing.T) {
	storetest.RunProcesses(t, worker, func(t *testing.T) (string, tasks.Store) {
		pool := sharedPool(t)
		dsn, err := url.Parse(serverDSN(t))
		require.NoError(t, err)
		dsn.Path = "/" + pool.Config().ConnConfig.Database
		s, err := pgstore.Open(t.Context(), pool)
		require.NoError(t, err)
		return dsn.String(), storetest.Timed(s, dbClock{t, pool})
	})
}
