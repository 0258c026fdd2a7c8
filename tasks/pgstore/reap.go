package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// Reap implements [tasks.Store].
func (s *Store) Reap(ctx context.Context, limit int) (int, error) {
	if limit <= 0 {
		return 0, nil
	}
	return deleteExpired(ctx, s.pool, `true`, nil, limit)
}

// deleteExpired deletes up to limit (negative: all) expired tasks that where selects ($2 on
// is arg) and takes them off the counters, in one statement; rows another transaction
// holds are left for the next pass.
func deleteExpired(ctx context.Context, q querier, where string, arg []any, limit int) (int, error) {
	var n int
	lim := any(nil)
	if limit >= 0 {
		lim = limit
	}
	err := q.QueryRow(ctx, `WITH
		del AS (DELETE FROM fastmcp_tasks WHERE id IN (
			SELECT id FROM fastmcp_tasks WHERE expires_at <= `+dbNow+` AND `+where+`
			LIMIT $1 FOR UPDATE SKIP LOCKED) RETURNING scope, status),
		total AS (UPDATE fastmcp_task_total SET n = n - (SELECT count(*) FROM del)
			WHERE id = 1 AND EXISTS (SELECT 1 FROM del)),
		active AS (UPDATE fastmcp_task_active a SET n = a.n - d.k
			FROM (SELECT scope, count(*) AS k FROM del WHERE status NOT IN `+terminal+` GROUP BY scope) d
			WHERE a.scope = d.scope)
		SELECT count(*) FROM del`, append([]any{lim}, arg...)...).Scan(&n)
	return n, err
}
