package sqlitestore_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/fastmcp-go/fastmcp/tasks/sqlitestore"
	"github.com/fastmcp-go/fastmcp/tasks/storetest"
)

// BenchmarkCreate: Store.Create against one plain INSERT + COMMIT (BEGIN IMMEDIATE, like
// the store's writes) on the same file and connection settings, per synchronous setting.
func BenchmarkCreate(b *testing.B) {
	for _, sync := range []string{"FULL", "NORMAL"} {
		b.Run("synchronous="+sync, func(b *testing.B) {
			s, err := sqlitestore.Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"), sqlitestore.Config{Synchronous: sync})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			db := s.DB()
			if _, err := db.ExecContext(b.Context(), `CREATE TABLE floor (id TEXT PRIMARY KEY, body BLOB)`); err != nil {
				b.Fatal(err)
			}
			storetest.BenchCreate(b, s, func(ctx context.Context, id string, body []byte) error {
				tx, err := db.BeginTx(ctx, nil)
				if err != nil {
					return err
				}
				if _, err := tx.ExecContext(ctx, `INSERT INTO floor (id, body) VALUES (?, ?)`, id, body); err != nil {
					_ = tx.Rollback()
					return err
				}
				return tx.Commit()
			})
		})
	}
}
