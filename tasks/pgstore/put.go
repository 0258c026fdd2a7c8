package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/fastmcp-go/fastmcp/tasks"
)

// Put implements [tasks.Store]: one conditional UPDATE (and the scope's active count when the
// task ends); when it matches nothing, the stored row says which condition failed.
func (s *Store) Put(ctx context.Context, t *tasks.Task, fence int64) error {
	args := fields(t)
	args["id"], args["revision"], args["fence"] = t.ID, t.Revision, fence
	args["ends"] = t.Status.Terminal()
	var revision int64
	err := s.pool.QueryRow(ctx, `WITH up AS (UPDATE fastmcp_tasks SET
			status = @status, status_message = @status_message, updated_at = coalesce(@updated_at, updated_at),
			ttl_ns = @ttl, poll_interval_ns = @poll_interval,
			expires_at = CASE WHEN @ttl::bigint > 0 THEN created_at + (@ttl::bigint / 1000) * interval '1 microsecond' END,
			work_version = @work_version, work_tool = @work_tool, work_arguments = @work_arguments, work_meta = @work_meta,
			input_requests = @input_requests, responses = @responses, keys = @keys, result = @result, error = @error,
			cancel_requested = @cancel_requested, attempt = @attempt, not_before = @not_before,
			revision = revision + 1
			WHERE id = @id AND revision = @revision AND status NOT IN `+terminal+` AND `+notExpired+`
			AND (@fence::bigint = 0 OR (lease_gen = @fence AND lease_until > `+dbNow+`))
			RETURNING revision, scope),
		ended AS (UPDATE fastmcp_task_active a SET n = a.n - 1 FROM up WHERE a.scope = up.scope AND @ends::boolean)
		SELECT revision FROM up`, args).Scan(&revision)
	if errors.Is(err, pgx.ErrNoRows) {
		return s.refusal(ctx, t.ID, fence, t.Revision)
	}
	if err != nil {
		return err
	}
	t.Revision = revision
	return nil
}

// refusal explains why a conditional write to id matched nothing: ErrNotFound (missing or
// expired), ErrConflict (terminal, or another revision when revision is above zero) or
// ErrLeaseLost (fence above zero and not the live lease). It reads the row after the
// write, so it names a reason that held then or holds now.
func (s *Store) refusal(ctx context.Context, id string, fence, revision int64) error {
	var (
		status       string
		rev, gen     int64
		live, leased bool
	)
	err := s.pool.QueryRow(ctx, `SELECT status, revision, lease_gen, `+notExpired+`,
		coalesce(lease_until > `+dbNow+`, false) FROM fastmcp_tasks WHERE id = $1`, id).Scan(&status, &rev, &gen, &live, &leased)
	switch {
	case errors.Is(err, pgx.ErrNoRows), err == nil && !live:
		return tasks.ErrNotFound
	case err != nil:
		return err
	case revision > 0 && tasks.Status(status).Terminal():
		return tasks.ErrConflict
	case fence > 0 && (gen != fence || !leased):
		return tasks.ErrLeaseLost
	case revision > 0 && rev != revision:
		return tasks.ErrConflict
	}
	return tasks.ErrLeaseLost
}

// leaseEnd is the database's time leaseFor from now, in SQL with the microseconds as $n.
func leaseEnd(n string) string {
	return `(` + dbNow + ` + ` + n + `::bigint * interval '1 microsecond')`
}
