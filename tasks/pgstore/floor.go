package pgstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
)

// Floor prepares the physical floor of Create on s's database, for benchmarks that set
// Create's cost beside the database's own (fastmcp-bench run tasks): insert writes one plain
// row of body into a scratch table in one autocommitted INSERT (one round trip, one commit,
// as Create is); drop removes the table. The store's tables are not touched.
func (s *Store) Floor(ctx context.Context) (insert func(ctx context.Context, id string, body []byte) error, drop func(ctx context.Context) error, err error) {
	suffix := make([]byte, 6)
	_, _ = rand.Read(suffix)
	table := "fastmcp_floor_" + hex.EncodeToString(suffix)
	if _, err := s.pool.Exec(ctx, `CREATE TABLE `+table+` (id text PRIMARY KEY, body bytea)`); err != nil {
		return nil, nil, err
	}
	insertSQL := `INSERT INTO ` + table + ` (id, body) VALUES ($1, $2)`
	insert = func(ctx context.Context, id string, body []byte) error {
		_, err := s.pool.Exec(ctx, insertSQL, id, body)
		return err
	}
	drop = func(ctx context.Context) error {
		_, err := s.pool.Exec(ctx, `DROP TABLE `+table)
		return err
	}
	return insert, drop, nil
}
