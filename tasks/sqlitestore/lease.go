package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/fastmcp-go/fastmcp/tasks"
)

// ClaimNext implements [tasks.Store]: of the runnable tasks it leases the one created first.
// The write lock makes the choice and the lease one step for every process.
func (s *Store) ClaimNext(ctx context.Context, worker string, leaseFor time.Duration) (*tasks.Task, error) {
	var t *tasks.Task
	err := s.write(ctx, func(tx wtx, now int64) (err error) {
		t, err = scanTask(tx.QueryRowContext(ctx, `UPDATE tasks SET
			lease_owner = :worker, lease_gen = lease_gen + 1, lease_until = :until,
			attempt = attempt + 1, revision = revision + 1
			WHERE id = (SELECT id FROM tasks
				WHERE status = 'working' AND cancel_requested = 0 AND lease_until <= :now
				AND not_before <= :now AND `+notExpired+`
				ORDER BY created_at, id LIMIT 1)
			RETURNING `+columns,
			sql.Named("worker", worker), sql.Named("until", now+int64(leaseFor)), sql.Named("now", now)))
		if errors.Is(err, sql.ErrNoRows) {
			t, err = nil, nil
		}
		return err
	})
	return t, err
}

// Renew implements [tasks.Store].
func (s *Store) Renew(ctx context.Context, id string, fence int64, leaseFor time.Duration) (bool, error) {
	var cancel bool
	err := s.write(ctx, func(tx wtx, now int64) error {
		err := tx.QueryRowContext(ctx, `UPDATE tasks SET lease_until = :until
			WHERE id = :id AND lease_gen = :fence AND lease_until > :now AND `+notExpired+`
			RETURNING cancel_requested`,
			sql.Named("until", now+int64(leaseFor)), sql.Named("id", id), sql.Named("fence", fence),
			sql.Named("now", now)).Scan(&cancel)
		if errors.Is(err, sql.ErrNoRows) {
			return refusal(ctx, tx, now, id, fence, 0)
		}
		return err
	})
	return cancel, err
}

// Release implements [tasks.Store].
func (s *Store) Release(ctx context.Context, id string, fence int64) error {
	return s.write(ctx, func(tx wtx, now int64) error {
		res, err := tx.ExecContext(ctx, `UPDATE tasks SET lease_owner = '', lease_until = 0
			WHERE id = :id AND lease_gen = :fence AND lease_owner != '' AND `+notExpired,
			sql.Named("id", id), sql.Named("fence", fence), sql.Named("now", now))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			return err
		}
		return refusal(ctx, tx, now, id, fence, 0)
	})
}
