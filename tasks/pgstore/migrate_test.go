package pgstore_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks/pgstore"
)

// TestOpenNeverMigrates: Open on an empty database changes nothing and says to migrate.
func TestOpenNeverMigrates(t *testing.T) {
	pool := newDatabase(t)
	_, err := pgstore.Open(t.Context(), pool)
	require.ErrorIs(t, err, pgstore.ErrNotMigrated)
	var tables int
	require.NoError(t, pool.QueryRow(t.Context(),
		`SELECT count(*) FROM pg_tables WHERE tablename LIKE 'fastmcp_%'`).Scan(&tables))
	assert.Zero(t, tables)
}

// TestMigrateIdempotentAndConcurrent: four Migrates at once leave one schema at the
// current version; later ones change nothing.
func TestMigrateIdempotentAndConcurrent(t *testing.T) {
	pool := newDatabase(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() { errs[i] = pgstore.Migrate(t.Context(), pool) })
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	require.NoError(t, pgstore.Migrate(t.Context(), pool))
	var versions []int32
	rows, err := pool.Query(t.Context(), `SELECT version FROM fastmcp_tasks_schema ORDER BY version`)
	require.NoError(t, err)
	for rows.Next() {
		var v int32
		require.NoError(t, rows.Scan(&v))
		versions = append(versions, v)
	}
	require.NoError(t, rows.Err())
	assert.Equal(t, []int32{pgstore.SchemaVersion}, versions)
	_, err = pgstore.Open(t.Context(), pool)
	require.NoError(t, err)
}

func TestMigrateRefusesNewerSchema(t *testing.T) {
	pool := newDatabase(t)
	require.NoError(t, pgstore.Migrate(t.Context(), pool))
	_, err := pool.Exec(t.Context(), `INSERT INTO fastmcp_tasks_schema (version) VALUES (99)`)
	require.NoError(t, err)
	require.ErrorContains(t, pgstore.Migrate(t.Context(), pool), "schema version 99 is newer")
	_, err = pgstore.Open(t.Context(), pool)
	require.ErrorIs(t, err, pgstore.ErrNotMigrated)
}
