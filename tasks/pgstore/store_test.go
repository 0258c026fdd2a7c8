package pgstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/pgstore"
	"github.com/fastmcp-go/fastmcp/tasks/storetest"
)

// dbClock is the database's clock for the contract: Now reads it, and Advance moves every
// stored time back by d instead, which is the same to every rule of the store.
type dbClock struct {
	t    *testing.T
	pool *pgxpool.Pool
}

func (c dbClock) Now() time.Time {
	var now time.Time
	require.NoError(c.t, c.pool.QueryRow(context.Background(), `SELECT clock_timestamp()`).Scan(&now))
	return now
}

func (c dbClock) Advance(d time.Duration) {
	_, err := c.pool.Exec(context.Background(), `UPDATE fastmcp_tasks SET
		created_at = created_at - $1 * interval '1 microsecond', updated_at = updated_at - $1 * interval '1 microsecond',
		expires_at = expires_at - $1 * interval '1 microsecond', not_before = not_before - $1 * interval '1 microsecond',
		lease_until = lease_until - $1 * interval '1 microsecond'`, d.Microseconds())
	require.NoError(c.t, err)
}

func sharedPool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool := newDatabase(t)
	require.NoError(t, pgstore.Migrate(t.Context(), pool))
	return pool
}

func TestContract(t *testing.T) {
	pool := sharedPool(t)
	storetest.Run(t, func(t *testing.T) tasks.Store {
		_, err := pool.Exec(t.Context(), `TRUNCATE fastmcp_tasks, fastmcp_task_active`)
		require.NoError(t, err)
		_, err = pool.Exec(t.Context(), `UPDATE fastmcp_task_total SET n = 0`)
		require.NoError(t, err)
		s, err := pgstore.Open(t.Context(), pool)
		require.NoError(t, err)
		return storetest.Timed(s, dbClock{t, pool})
	})
}
