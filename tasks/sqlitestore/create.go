package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/fastmcp-go/fastmcp/tasks"
)

// Create implements [tasks.Store]: the counters and the row in one transaction.
func (s *Store) Create(ctx context.Context, t *tasks.Task, lim tasks.Limits) error {
	maxTasks, maxActive := limits(lim)
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

// reserve counts one more task, and one more active task of scope when active, or refuses
// with *tasks.CapacityError; at a limit it first deletes the expired tasks in the way.
func reserve(ctx context.Context, tx wtx, now int64, scope string, active bool, maxTasks, maxActive int) error {
	take := func() (bool, error) {
		return returned(tx.QueryRowContext(ctx, `UPDATE task_counts SET n = n + 1 WHERE key = 'total' AND n < :max RETURNING n`, sql.Named("max", maxTasks)))
	}
	ok, err := take()
	if err == nil && !ok {
		if _, err = deleteExpired(ctx, tx, now, `true`); err == nil {
			ok, err = take()
		}
	}
	if err != nil {
		return err
	}
	if !ok {
		return &tasks.CapacityError{Limit: "MaxTasks"}
	}
	if !active {
		return nil
	}
	take = func() (bool, error) {
		return returned(tx.QueryRowContext(ctx, `INSERT INTO task_counts (key, n) VALUES ('scope:' || :scope, 1)
			ON CONFLICT (key) DO UPDATE SET n = n + 1 WHERE n < :max RETURNING n`,
			sql.Named("scope", scope), sql.Named("max", maxActive)))
	}
	ok, err = take()
	if err == nil && !ok {
		if _, err = deleteExpired(ctx, tx, now, `scope = :scope`, sql.Named("scope", scope)); err == nil {
			ok, err = take()
		}
	}
	if err != nil {
		return err
	}
	if !ok {
		return &tasks.CapacityError{Limit: "MaxActivePerScope"}
	}
	return nil
}

// returned reports whether a RETURNING statement returned its row.
func returned(row *sql.Row) (bool, error) {
	var n int64
	err := row.Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

func limits(lim tasks.Limits) (maxTasks, maxActive int) {
	maxTasks, maxActive = lim.MaxTasks, lim.MaxActivePerScope
	if maxTasks <= 0 {
		maxTasks = tasks.DefaultMaxTasks
	}
	if maxActive <= 0 {
		maxActive = tasks.DefaultMaxActivePerScope
	}
	return maxTasks, maxActive
}
