package pgstore

import (
	"context"

	"github.com/fastmcp-go/fastmcp/tasks/internal/floor"
)

// Floor prepares the physical floor of Create on s's database, for benchmarks that set
// Create's cost beside the database's own (fastmcp-bench run tasks): insert writes one plain
// row of body into a scratch table in one autocommitted INSERT (one round trip, one commit,
// as Create is); drop removes the table. The store's tables are not touched.
func (s *Store) Floor(ctx context.Context) (insert func(ctx context.Context, id string, body []byte) error, drop func(ctx context.Context) error, err error) {
	return floor.Open(ctx, func(ctx context.Context, query string, args ...any) error {
		_, err := s.pool.Exec(ctx, query, args...)
		return err
	}, floor.Dialect{Text: "text", Blob: "bytea", Params: "$1, $2"})
}
