package pgstore_test

import (
	"context"
	"testing"

	"github.com/fastmcp-go/fastmcp/tasks/pgstore"
	"github.com/fastmcp-go/fastmcp/tasks/storetest"
)

// BenchmarkCreate: Store.Create against one plain INSERT (autocommit: INSERT + COMMIT in one
// round trip) on the same database and pool.
func BenchmarkCreate(b *testing.B) {
	pool := newDatabase(b)
	if err := pgstore.Migrate(b.Context(), pool); err != nil {
		b.Fatal(err)
	}
	s, err := pgstore.Open(b.Context(), pool)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(b.Context(), `CREATE TABLE floor (id text PRIMARY KEY, body bytea)`); err != nil {
		b.Fatal(err)
	}
	storetest.BenchCreate(b, s, func(ctx context.Context, id string, body []byte) error {
		_, err := pool.Exec(ctx, `INSERT INTO floor (id, body) VALUES ($1, $2)`, id, body)
		return err
	})
}
