package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Dial connects a pool of its own to dsn (a PostgreSQL URL or key=value string) and opens
// the store on it, for a program that is given a DSN rather than a pool (fastmcp-bench serve
// --tasks-store postgres:DSN); with migrate it applies [Migrate] first, which is never done
// otherwise. closePool closes that pool: call it after the store's last use.
func Dial(ctx context.Context, dsn string, migrate bool) (_ *Store, closePool func(), _ error) {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, nil, err
	}
	if migrate {
		if err := Migrate(ctx, pool); err != nil {
			pool.Close()
			return nil, nil, err
		}
	}
	s, err := Open(ctx, pool)
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	return s, pool.Close, nil
}
