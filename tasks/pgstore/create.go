package pgstore

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fastmcp-go/fastmcp/tasks"
)

// Create implements [tasks.Store]: the counters and the row in one transaction; at a limit,
// or on a taken id, it tries once more after deleting the expired tasks in the way.
func (s *Store) Create(ctx context.Context, t *tasks.Task, lim tasks.Limits) error {
	maxTasks, maxActive := lim.Bounds()
	args := fields(t)
	args["id"], args["scope"], args["created_at"] = t.ID, t.Scope, optTime(t.CreatedAt)
	active := !t.Status.Terminal()

	created, updated, err := s.tryCreate(ctx, args, active, maxTasks, maxActive)
	var capErr *tasks.CapacityError
	if errors.As(err, &capErr) || errors.Is(err, tasks.ErrExists) {
		where, arg := `true`, []any(nil)
		switch {
		case errors.Is(err, tasks.ErrExists):
			where, arg = `id = $2`, []any{t.ID}
		case capErr.Limit == "MaxActivePerScope":
			where, arg = `scope = $2`, []any{t.Scope}
		}
		if n, derr := deleteExpired(ctx, s.pool, where, arg, -1); derr != nil {
			err = derr
		} else if n > 0 {
			created, updated, err = s.tryCreate(ctx, args, active, maxTasks, maxActive)
		}
	}
	if err != nil {
		return err
	}
	t.CreatedAt, t.UpdatedAt = created, updated
	t.LeaseOwner, t.LeaseGen, t.LeaseUntil = "", 0, time.Time{}
	t.Revision = 1
	return nil
}

// tryCreate calls fastmcp_task_create: one statement, so one round trip and one commit.
func (s *Store) tryCreate(ctx context.Context, args pgx.NamedArgs, active bool, maxTasks, maxActive int) (created, updated time.Time, err error) {
	args["active"], args["max_tasks"], args["max_active"] = active, maxTasks, maxActive
	var (
		outcome  string
		oCreated *time.Time
		oUpdated *time.Time
	)
	err = s.pool.QueryRow(ctx, `SELECT o_outcome, o_created, o_updated FROM fastmcp_task_create(
		@id, @scope, @active, @max_tasks, @max_active, @status, @status_message,
		@created_at, @updated_at, @ttl, @poll_interval, @work_version, @work_tool, @work_arguments, @work_meta,
		@input_requests, @responses, @keys, @result, @error, @cancel_requested, @attempt, @not_before)`,
		args).Scan(&outcome, &oCreated, &oUpdated)
	switch {
	case err != nil:
		return created, updated, err
	case outcome == "exists":
		return created, updated, tasks.ErrExists
	case outcome != "created":
		return created, updated, &tasks.CapacityError{Limit: outcome}
	}
	return *oCreated, *oUpdated, nil
}
