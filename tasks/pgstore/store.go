package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fastmcp-go/fastmcp/tasks"
)

// Store is a tasks.Store in PostgreSQL. It is safe for concurrent use, and any number of
// processes may use the same database.
type Store struct {
	pool *pgxpool.Pool
}

var _ tasks.Store = (*Store)(nil)

// Open returns the store on pool's database, which must be at SchemaVersion (else
// ErrNotMigrated). It changes nothing in the database.
func Open(ctx context.Context, pool *pgxpool.Pool) (*Store, error) {
	if pool == nil {
		return nil, errors.New("pgstore: nil pool")
	}
	version, err := schemaVersion(ctx, pool)
	if err != nil {
		return nil, err
	}
	if version != SchemaVersion {
		return nil, fmt.Errorf("%w (it is at version %d, this package needs %d)", ErrNotMigrated, version, SchemaVersion)
	}
	return &Store{pool: pool}, nil
}

// Close implements [tasks.Store]. The pool is the application's: it stays open.
func (s *Store) Close() error { return nil }

// dbNow is the database's clock in a statement: an uncorrelated subquery, evaluated once,
// so an index can use it.
const dbNow = `(SELECT clock_timestamp())`

// notExpired is the condition of a live task.
const notExpired = `(expires_at IS NULL OR expires_at > ` + dbNow + `)`

const terminal = `('completed', 'failed', 'cancelled')`

// columns lists the task columns in the order scanTask reads them.
const columns = `id, scope, status, status_message, created_at, updated_at, ttl_ns, poll_interval_ns,
	work_version, work_tool, work_arguments, work_meta, input_requests, responses, keys, result, error,
	cancel_requested, attempt, not_before, lease_owner, lease_gen, lease_until, revision`

// Get implements [tasks.Store].
func (s *Store) Get(ctx context.Context, id string) (*tasks.Task, error) {
	t, err := scanTask(s.pool.QueryRow(ctx, `SELECT `+columns+` FROM fastmcp_tasks WHERE id = $1 AND `+notExpired, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, tasks.ErrNotFound
	}
	return t, err
}

func scanTask(row pgx.Row) (*tasks.Task, error) {
	var (
		t                    tasks.Task
		status               string
		ttl, poll            int64
		notBefore, leaseTill *time.Time
		args, meta           []byte
	)
	err := row.Scan(&t.ID, &t.Scope, &status, &t.StatusMessage, &t.CreatedAt, &t.UpdatedAt, &ttl, &poll,
		&t.Work.Version, &t.Work.Tool, &args, &meta, &t.InputRequests, &t.Responses, &t.Keys, &t.Result, &t.Error,
		&t.CancelRequested, &t.Attempt, &notBefore, &t.LeaseOwner, &t.LeaseGen, &leaseTill, &t.Revision)
	if err != nil {
		return nil, err
	}
	t.Status = tasks.Status(status)
	t.TTL, t.PollInterval = time.Duration(ttl), time.Duration(poll)
	t.Work.Arguments, t.Work.Meta = args, meta
	if notBefore != nil {
		t.NotBefore = *notBefore
	}
	if leaseTill != nil {
		t.LeaseUntil = *leaseTill
	}
	return &t, nil
}

// fields are the named arguments of t's non-lease, non-identity columns.
func fields(t *tasks.Task) pgx.NamedArgs {
	return pgx.NamedArgs{
		"status":           string(t.Status),
		"status_message":   t.StatusMessage,
		"updated_at":       optTime(t.UpdatedAt),
		"ttl":              int64(t.TTL),
		"poll_interval":    int64(t.PollInterval),
		"work_version":     t.Work.Version,
		"work_tool":        t.Work.Tool,
		"work_arguments":   optBytes(t.Work.Arguments),
		"work_meta":        optBytes(t.Work.Meta),
		"input_requests":   optBytes(t.InputRequests),
		"responses":        optBytes(t.Responses),
		"keys":             optKeys(t.Keys),
		"result":           optBytes(t.Result),
		"error":            optBytes(t.Error),
		"cancel_requested": t.CancelRequested,
		"attempt":          t.Attempt,
		"not_before":       optTime(t.NotBefore),
	}
}

// optBytes is a JSON value as bytea, NULL when empty (bytea keeps the bytes as written).
func optBytes(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

func optKeys(keys []string) []string {
	if len(keys) == 0 {
		return nil
	}
	return keys
}

func optTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// micros is d for SQL: an interval is d's microseconds times interval '1 microsecond'.
func micros(d time.Duration) int64 { return d.Microseconds() }
