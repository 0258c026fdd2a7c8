package sqlitestore

import (
	"context"
	"database/sql"
	"slices"
	"time"

	"github.com/fastmcp-go/fastmcp/tasks"
)

// Create implements [tasks.Store]: the counters and the row in one transaction.
func (s *Store) Create(ctx context.Context, t *tasks.Task, lim tasks.Limits) error {
	maxTasks, maxActive := lim.Bounds()
	return s.write(ctx, func(tx wtx, now int64) error {
		filled := *t
		if filled.CreatedAt.IsZero() {
			filled.CreatedAt = unstamp(now)
		}
		if filled.UpdatedAt.IsZero() {
			filled.UpdatedAt = filled.CreatedAt
		}
		args, err := fields(&filled)
		if err != nil {
			return err
		}
		created := stamp(filled.CreatedAt)
		args = append(args, sql.Named("id", t.ID), sql.Named("scope", t.Scope),
			sql.Named("created_at", created), sql.Named("expires_at", expiresAt(created, t.TTL)))
		if err := reserve(ctx, tx, now, t.Scope, !t.Status.Terminal(), maxTasks, maxActive); err != nil {
			return err
		}
		inserted, err := insert(ctx, tx, args)
		if err == nil && !inserted {
			// The id is taken: by an expired task, which goes, or a live one.
			var n int
			n, err = deleteExpired(ctx, tx, now, `id = :id`, sql.Named("id", t.ID))
			if err == nil && n == 1 {
				inserted, err = insert(ctx, tx, args)
			}
		}
		if err != nil {
			return err
		}
		if !inserted {
			return tasks.ErrExists
		}
		t.CreatedAt, t.UpdatedAt = filled.CreatedAt, filled.UpdatedAt
		t.LeaseOwner, t.LeaseGen, t.LeaseUntil = "", 0, time.Time{}
		t.Revision = 1
		return nil
	})
}

func insert(ctx context.Context, tx wtx, args []any) (bool, error) {
	res, err := tx.ExecContext(ctx, `INSERT INTO tasks (`+columns+`, expires_at) VALUES (
		:id, :scope, :status, :status_message, :created_at, :updated_at, :ttl, :poll_interval,
		:work_version, :work_tool, :work_arguments, :work_meta, :input_requests, :responses, :keys, :result, :error,
		:cancel_requested, :attempt, :not_before, '', 0, 0, 1, :expires_at)
		ON CONFLICT (id) DO NOTHING`, args...)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// The count statements: the total alone (a terminal task), or the total and the scope's
// active count in one statement; each returns the keys it moved.
const (
	takeTotal = `UPDATE task_counts SET n = n + 1 WHERE key = 'total' AND n < :max RETURNING key`
	takeBoth  = `INSERT INTO task_counts (key, n) VALUES ('total', 1), ('scope:' || :scope, 1)
		ON CONFLICT (key) DO UPDATE SET n = n + 1
		WHERE n < CASE WHEN key = 'total' THEN :max ELSE :max_active END
		RETURNING key`
	giveBack = `UPDATE task_counts SET n = n - 1 WHERE key = :key`
)

// reserve counts one more task, and one more active task of scope when active, or refuses
// with *tasks.CapacityError; at a limit it first deletes the expired tasks in the way.
func reserve(ctx context.Context, tx wtx, now int64, scope string, active bool, maxTasks, maxActive int) error {
	refused, err := take(ctx, tx, scope, active, maxTasks, maxActive)
	if err == nil && refused != "" {
		where, args := `true`, []any(nil)
		if refused == "MaxActivePerScope" {
			where, args = `scope = :scope`, []any{sql.Named("scope", scope)}
		}
		var n int
		if n, err = deleteExpired(ctx, tx, now, where, args...); err == nil && n > 0 {
			refused, err = take(ctx, tx, scope, active, maxTasks, maxActive)
		}
	}
	if err != nil {
		return err
	}
	if refused != "" {
		return &tasks.CapacityError{Limit: refused}
	}
	return nil
}

// take moves the counts, or none of them and names the limit in the way.
func take(ctx context.Context, tx wtx, scope string, active bool, maxTasks, maxActive int) (refused string, err error) {
	query := takeTotal
	if active {
		query = takeBoth
	}
	rows, err := tx.QueryContext(ctx, query, sql.Named("scope", scope), sql.Named("max", maxTasks), sql.Named("max_active", maxActive))
	if err != nil {
		return "", err
	}
	var moved []string
	for rows.Next() {
		var key string
		if err := rows.Scan(&key); err != nil {
			rows.Close()
			return "", err
		}
		moved = append(moved, key)
	}
	if err := rows.Close(); err != nil {
		return "", err
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	switch {
	case !slices.Contains(moved, "total"):
		refused = "MaxTasks"
	case active && len(moved) < 2:
		refused = "MaxActivePerScope"
	default:
		return "", nil
	}
	for _, key := range moved {
		if _, err := tx.ExecContext(ctx, giveBack, sql.Named("key", key)); err != nil {
			return "", err
		}
	}
	return refused, nil
}
