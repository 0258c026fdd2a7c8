package pgstore

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fastmcp-go/fastmcp/tasks"
)

// ClaimNext implements [tasks.Store]: the oldest runnable task, locked with FOR UPDATE SKIP
// LOCKED so concurrent claimers pass over each other's rows, leased in the same statement.
func (s *Store) ClaimNext(ctx context.Context, worker string, leaseFor time.Duration) (*tasks.Task, error) {
	t, err := scanTask(s.pool.QueryRow(ctx, `UPDATE fastmcp_tasks SET
			lease_owner = $1, lease_gen = lease_gen + 1, lease_until = `+leaseEnd("$2")+`,
			attempt = attempt + 1, revision = revision + 1
		WHERE id = (SELECT id FROM fastmcp_tasks
			WHERE status = 'working' AND NOT cancel_requested
			AND (lease_until IS NULL OR lease_until <= `+dbNow+`)
			AND (not_before IS NULL OR not_before <= `+dbNow+`) AND `+notExpired+`
			ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING `+columns, worker, micros(leaseFor)))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	return t, err
}

// Renew implements [tasks.Store].
func (s *Store) Renew(ctx context.Context, id string, fence int64, leaseFor time.Duration) (bool, error) {
	var cancel bool
	err := s.pool.QueryRow(ctx, `UPDATE fastmcp_tasks SET lease_until = `+leaseEnd("$3")+`
		WHERE id = $1 AND lease_gen = $2 AND lease_until > `+dbNow+` AND `+notExpired+`
		RETURNING cancel_requested`, id, fence, micros(leaseFor)).Scan(&cancel)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, s.refusal(ctx, id, fence, 0)
	}
	return cancel, err
}

// Release implements [tasks.Store].
func (s *Store) Release(ctx context.Context, id string, fence int64) error {
	tag, err := s.pool.Exec(ctx, `UPDATE fastmcp_tasks SET lease_owner = '', lease_until = NULL
		WHERE id = $1 AND lease_gen = $2 AND lease_owner != '' AND `+notExpired, id, fence)
	if err != nil || tag.RowsAffected() == 1 {
		return err
	}
	return s.refusal(ctx, id, fence, 0)
}
