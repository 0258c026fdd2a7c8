package sqlitestore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
)

// Floor prepares the physical floor of Create on s's file, for benchmarks that set Create's
// cost beside the database's own (fastmcp-bench run tasks): insert writes one plain row of
// body into a scratch table, in one BEGIN IMMEDIATE transaction and its COMMIT, queued
// like the store's writes; drop removes the table. The store's tables are not touched.
func (s *Store) Floor(ctx context.Context) (insert func(ctx context.Context, id string, body []byte) error, drop func(ctx context.Context) error, err error) {
	suffix := make([]byte, 6)
	_, _ = rand.Read(suffix)
	table := "fastmcp_floor_" + hex.EncodeToString(suffix)
	if err := s.write(ctx, func(w wtx, _ int64) error {
		_, err := w.tx.ExecContext(ctx, `CREATE TABLE `+table+` (id TEXT PRIMARY KEY, body BLOB)`)
		return err
	}); err != nil {
		return nil, nil, err
	}
	insertSQL := `INSERT INTO ` + table + ` (id, body) VALUES (?, ?)`
	insert = func(ctx context.Context, id string, body []byte) error {
		return s.write(ctx, func(w wtx, _ int64) error {
			_, err := w.tx.ExecContext(ctx, insertSQL, id, body)
			return err
		})
	}
	drop = func(ctx context.Context) error {
		return s.write(ctx, func(w wtx, _ int64) error {
			_, err := w.tx.ExecContext(ctx, `DROP TABLE `+table)
			return err
		})
	}
	return insert, drop, nil
}
