package sqlitestore_test

import (
	"path/filepath"
	"testing"

	"github.com/fastmcp-go/fastmcp/tasks/sqlitestore"
	"github.com/fastmcp-go/fastmcp/tasks/storetest"
)

// BenchmarkCreate: Store.Create against its floor, one plain INSERT + COMMIT (BEGIN
// IMMEDIATE, queued like the store's writes) on the same file and connection settings, per
// synchronous setting.
func BenchmarkCreate(b *testing.B) {
	for _, sync := range []string{"FULL", "NORMAL"} {
		b.Run("synchronous="+sync, func(b *testing.B) {
			s, err := sqlitestore.Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"), sqlitestore.Config{Synchronous: sync})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			storetest.BenchCreate(b, s, s.Floor)
		})
	}
}
