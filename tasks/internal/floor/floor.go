// Package floor is the physical floor of a SQL store's Create, shared by tasks/sqlitestore
// and tasks/pgstore: one plain row written into a scratch table by one statement and its
// commit, the least a durable Create can cost on that database. Benchmarks set Create's cost
// beside it (fastmcp-bench run tasks, and each store's BenchmarkCreate through
// storetest.BenchCreate). A store supplies how it runs a statement and how its SQL spells
// the columns; the store's own tables are never touched.
package floor

import (
	"context"
	"crypto/rand"
	"encoding/hex"
)

// Exec runs one statement as the store runs its writes (its transaction and commit).
type Exec func(ctx context.Context, query string, args ...any) error

// Dialect is what the database spells its own way.
type Dialect struct {
	Text, Blob string // the column types of the id and of the body
	Params     string // the INSERT's two parameters: "$1, $2" or "?, ?"
}

// Open creates a scratch table with a random name, so that floors of runs sharing a database
// never meet. insert writes one row of body under id (a taken id is refused: it is the
// primary key); drop removes the table.
func Open(ctx context.Context, exec Exec, d Dialect) (insert func(ctx context.Context, id string, body []byte) error, drop func(ctx context.Context) error, err error) {
	suffix := make([]byte, 6)
	_, _ = rand.Read(suffix)
	table := "fastmcp_floor_" + hex.EncodeToString(suffix)
	if err := exec(ctx, `CREATE TABLE `+table+` (id `+d.Text+` PRIMARY KEY, body `+d.Blob+`)`); err != nil {
		return nil, nil, err
	}
	insertSQL := `INSERT INTO ` + table + ` (id, body) VALUES (` + d.Params + `)`
	insert = func(ctx context.Context, id string, body []byte) error {
		return exec(ctx, insertSQL, id, body)
	}
	drop = func(ctx context.Context) error {
		return exec(ctx, `DROP TABLE `+table)
	}
	return insert, drop, nil
}
