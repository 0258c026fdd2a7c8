package sqlitestore

import (
	"context"
	"database/sql"

	"github.com/fastmcp-go/fastmcp/tasks"
)

// Reap implements [tasks.Store].
func (s *Store) Reap(ctx context.Context, limit int) (int, error) {
	if limit <= 0 {
		return 0, nil
	}
	var n int
	err := s.write(ctx, func(tx wtx, now int64) (err error) {
		n, err = deleteExpired(ctx, tx, now, `true LIMIT :limit`, sql.Named("limit", limit))
		return err
	})
	return n, err
}

// deleteExpired deletes the expired tasks that where (a condition, possibly with a LIMIT)
// selects, and takes them off the counters.
func deleteExpired(ctx context.Context, tx wtx, now int64, where string, args ...any) (int, error) {
	rows, err := tx.QueryContext(ctx, `DELETE FROM tasks WHERE id IN (
		SELECT id FROM tasks WHERE expires_at <= :now AND `+where+`) RETURNING scope, status`,
		append(args, sql.Named("now", now))...)
	if err != nil {
		return 0, err
	}
	deleted, active := 0, map[string]int{}
	for rows.Next() {
		var scope, status string
		if err := rows.Scan(&scope, &status); err != nil {
			rows.Close()
			return 0, err
		}
		deleted++
		if !tasks.Status(status).Terminal() {
			active[scope]++
		}
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	if err := rows.Err(); err != nil || deleted == 0 {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE task_counts SET n = n - :n WHERE key = 'total'`, sql.Named("n", deleted)); err != nil {
		return 0, err
	}
	for scope, n := range active {
		if err := leaveActive(ctx, tx, scope, n); err != nil {
			return 0, err
		}
	}
	return deleted, nil
}

// leaveActive takes n tasks of scope off its active count, and drops the count at zero.
func leaveActive(ctx context.Context, tx wtx, scope string, n int) error {
	_, err := tx.ExecContext(ctx, `UPDATE task_counts SET n = n - :n WHERE key = 'scope:' || :scope`,
		sql.Named("n", n), sql.Named("scope", scope))
	if err == nil {
		_, err = tx.ExecContext(ctx, `DELETE FROM task_counts WHERE key = 'scope:' || :scope AND n <= 0`, sql.Named("scope", scope))
	}
	return err
}
