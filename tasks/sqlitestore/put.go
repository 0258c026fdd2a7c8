package sqlitestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/fastmcp-go/fastmcp/tasks"
)

const getTask = `SELECT ` + columns + ` FROM tasks WHERE id = :id AND ` + notExpired

// Get implements [tasks.Store]: a read, which in WAL mode never waits for a writer.
func (s *Store) Get(ctx context.Context, id string) (*tasks.Task, error) {
	st, err := s.prepared(ctx, getTask)
	if err != nil {
		return nil, err
	}
	t, err := scanTask(st.QueryRowContext(ctx, sql.Named("id", id), sql.Named("now", stamp(s.now()))))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, tasks.ErrNotFound
	}
	return t, err
}

// Put implements [tasks.Store]: one conditional UPDATE; when it matches nothing, the stored
// row says which condition failed.
func (s *Store) Put(ctx context.Context, t *tasks.Task, fence int64) error {
	args, err := fields(t)
	if err != nil {
		return err
	}
	return s.write(ctx, func(tx wtx, now int64) error {
		var (
			revision int64
			scope    string
		)
		err := tx.QueryRowContext(ctx, `UPDATE tasks SET
			status = :status, status_message = :status_message, updated_at = CASE WHEN :updated_at = 0 THEN updated_at ELSE :updated_at END,
			ttl = :ttl, expires_at = CASE WHEN :ttl > 0 THEN created_at + :ttl END, poll_interval = :poll_interval,
			work_version = :work_version, work_tool = :work_tool, work_arguments = :work_arguments, work_meta = :work_meta,
			input_requests = :input_requests, responses = :responses, keys = :keys, result = :result, error = :error,
			cancel_requested = :cancel_requested, attempt = :attempt, not_before = :not_before,
			revision = revision + 1
			WHERE id = :id AND revision = :revision AND status NOT IN `+terminal+` AND `+notExpired+`
			AND (:fence = 0 OR (lease_gen = :fence AND lease_until > :now))
			RETURNING revision, scope`,
			append(args, sql.Named("id", t.ID), sql.Named("revision", t.Revision),
				sql.Named("fence", fence), sql.Named("now", now))...).Scan(&revision, &scope)
		if errors.Is(err, sql.ErrNoRows) {
			return refusal(ctx, tx, now, t.ID, fence, t.Revision)
		}
		if err != nil {
			return err
		}
		if t.Status.Terminal() {
			if err := leaveActive(ctx, tx, scope, 1); err != nil {
				return err
			}
		}
		t.Revision = revision
		return nil
	})
}

// refusal explains why a conditional write to id matched nothing: ErrNotFound (missing or
// expired), ErrConflict (terminal, or another revision when revision is above zero) or
// ErrLeaseLost (fence above zero and not the live lease).
func refusal(ctx context.Context, tx wtx, now int64, id string, fence, revision int64) error {
	var (
		status          string
		rev, gen, until int64
		expires         sql.NullInt64
	)
	err := tx.QueryRowContext(ctx, `SELECT status, revision, lease_gen, lease_until, expires_at FROM tasks WHERE id = :id`,
		sql.Named("id", id)).Scan(&status, &rev, &gen, &until, &expires)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return tasks.ErrNotFound
	case err != nil:
		return err
	case expires.Valid && expires.Int64 <= now:
		return tasks.ErrNotFound
	case revision > 0 && tasks.Status(status).Terminal():
		return tasks.ErrConflict
	case fence > 0 && (gen != fence || until <= now):
		return tasks.ErrLeaseLost
	case revision > 0 && rev != revision:
		return tasks.ErrConflict
	}
	return tasks.ErrLeaseLost
}
