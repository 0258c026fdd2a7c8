package pgstore

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fastmcp-go/fastmcp/tasks"
)

// The statements of one Create, sent together (one round trip), then committed.
const (
	takeTotal = `UPDATE fastmcp_task_total SET n = n + 1 WHERE id = 1 AND n < $1 RETURNING n`
	takeScope = `INSERT INTO fastmcp_task_active AS a (scope, n) VALUES ($1, 1)
		ON CONFLICT (scope) DO UPDATE SET n = a.n + 1 WHERE a.n < $2 RETURNING n`
	insertTask = `INSERT INTO fastmcp_tasks (` + columns + `, expires_at)
		SELECT @id, @scope, @status, @status_message, c.t, coalesce(@updated_at, c.t), @ttl, @poll_interval,
			@work_version, @work_tool, @work_arguments, @work_meta, @input_requests, @responses, @keys, @result, @error,
			@cancel_requested, @attempt, @not_before, '', 0, NULL, 1,
			CASE WHEN @ttl::bigint > 0 THEN c.t + (@ttl::bigint / 1000) * interval '1 microsecond' END
		FROM (SELECT coalesce(@created_at, clock_timestamp()) AS t) c
		ON CONFLICT (id) DO NOTHING
		RETURNING created_at, updated_at`
)

// Create implements [tasks.Store]: the counters and the row in one transaction; at a limit,
// or on a taken id, it tries once more after deleting the expired tasks in the way.
func (s *Store) Create(ctx context.Context, t *tasks.Task, lim tasks.Limits) error {
	maxTasks, maxActive := limits(lim)
	args := fields(t)
	args["id"], args["scope"], args["created_at"] = t.ID, t.Scope, optTime(t.CreatedAt)
	active := !t.Status.Terminal()

	created, updated, err := s.tryCreate(ctx, args, t.Scope, active, maxTasks, maxActive)
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
			created, updated, err = s.tryCreate(ctx, args, t.Scope, active, maxTasks, maxActive)
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

// tryCreate sends BEGIN, the counters and the insert in one batch, then commits, or rolls
// back on a refusal.
func (s *Store) tryCreate(ctx context.Context, args pgx.NamedArgs, scope string, active bool, maxTasks, maxActive int) (created, updated time.Time, err error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return created, updated, err
	}
	// A connection left inside a transaction is closed by Release, not reused.
	defer conn.Release()
	b := &pgx.Batch{}
	b.Queue(`BEGIN`)
	b.Queue(takeTotal, maxTasks)
	if active {
		b.Queue(takeScope, scope, maxActive)
	}
	b.Queue(insertTask, args)
	res := conn.SendBatch(ctx, b)
	refusal := func() error {
		if _, err := res.Exec(); err != nil {
			return err
		}
		if ok, err := returned(res.QueryRow()); !ok || err != nil {
			return errOr(err, &tasks.CapacityError{Limit: "MaxTasks"})
		}
		if !active {
		} else if ok, err := returned(res.QueryRow()); !ok || err != nil {
			return errOr(err, &tasks.CapacityError{Limit: "MaxActivePerScope"})
		}
		if err := res.QueryRow().Scan(&created, &updated); errors.Is(err, pgx.ErrNoRows) {
			return tasks.ErrExists
		} else if err != nil {
			return err
		}
		return nil
	}()
	if err := res.Close(); refusal == nil && err != nil {
		refusal = err
	}
	end := `COMMIT`
	if refusal != nil {
		end = `ROLLBACK`
	}
	if _, err := conn.Exec(ctx, end); err != nil && refusal == nil {
		refusal = err
	}
	return created, updated, refusal
}

// returned reports whether a RETURNING statement returned its row.
func returned(row pgx.Row) (bool, error) {
	var n int64
	err := row.Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

func errOr(err, otherwise error) error {
	if err != nil {
		return err
	}
	return otherwise
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
