package pgstore_test

import (
	"testing"

	"github.com/fastmcp-go/fastmcp/tasks/pgstore"
	"github.com/fastmcp-go/fastmcp/tasks/storetest"
)

// BenchmarkCreate: Store.Create against its floor, one plain INSERT (autocommit: INSERT +
// COMMIT in one round trip) on the same database and pool.
func BenchmarkCreate(b *testing.B) {
	pool := newDatabase(b)
	if err := pgstore.Migrate(b.Context(), pool); err != nil {
		b.Fatal(err)
	}
	s, err := pgstore.Open(b.Context(), pool)
	if err != nil {
		b.Fatal(err)
	}
	storetest.BenchCreate(b, s, s.Floor)
}

// BenchmarkCreateParallel: Store.Create from 32 callers at once, the task writes per second
// one primary commits.
func BenchmarkCreateParallel(b *testing.B) {
	pool := newDatabase(b)
	if err := pgstore.Migrate(b.Context(), pool); err != nil {
		b.Fatal(err)
	}
	s, err := pgstore.Open(b.Context(), pool)
	if err != nil {
		b.Fatal(err)
	}
	storetest.BenchCreateParallel(b, s, 32)
}
