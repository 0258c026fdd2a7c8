package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// Status is a task's state in the extension's status machine: working ⇄ input_required, then
// one of the terminal states completed, failed or cancelled, which never change.
type Status string

const (
	StatusWorking       Status = "working"
	StatusInputRequired Status = "input_required"
	StatusCompleted     Status = "completed"
	StatusFailed        Status = "failed"
	StatusCancelled     Status = "cancelled"
)

// Terminal reports whether s is final.
func (s Status) Terminal() bool {
	return s == StatusCompleted || s == StatusFailed || s == StatusCancelled
}

// Work is the serializable descriptor of a task's work, stored atomically with the task so
// that any worker (in this process after a restart, or another process sharing the store) can
// run it again. Its idempotency key is the task id, handed to the handler.
type Work struct {
	// Version of the descriptor's layout; stores keep it opaque.
	Version int `json:"v"`
	// Tool is the tools/call name; Arguments its validated arguments.
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Meta is the request _meta of the creating call (client capabilities, client info):
	// what the handler may rely on when it is rerun.
	Meta json.RawMessage `json:"meta,omitempty"`
}

// Task is one stored task. Stores persist every field; the lease fields are written only by
// ClaimNext, Renew and Release (Put leaves them as they are stored).
type Task struct {
	ID string
	// Scope is the principal that created the task: every read compares it, and a task of
	// another scope reads as unknown.
	Scope string

	Status        Status
	StatusMessage string
	CreatedAt     time.Time
	UpdatedAt     time.Time
	// TTL counts from CreatedAt; zero means unlimited (ttlMs null). The task reads as unknown
	// from CreatedAt+TTL on, and Reap deletes it.
	TTL          time.Duration
	PollInterval time.Duration

	Work Work

	// InputRequests holds the outstanding input requests of an input_required task, a JSON
	// object keyed like MRTR's inputRequests. Responses holds every answer accepted over
	// the task's lifetime (a JSON object by key), persisted before a worker reruns the work
	// with them; Keys lists every key ever issued, so none is reused.
	InputRequests json.RawMessage
	Responses     json.RawMessage
	Keys          []string

	// Result is the CallToolResult of a completed task; Error the JSON-RPC error object of a
	// failed one.
	Result json.RawMessage
	Error  json.RawMessage

	// CancelRequested is set by tasks/cancel; the worker holding the lease sees it on Renew.
	CancelRequested bool

	// Attempt counts the runs started; NotBefore delays the next claim (retry policy).
	Attempt   int
	NotBefore time.Time

	// Lease: the worker that holds the task, the generation of its claim (every claim adds
	// one; a worker's writes are fenced by it) and when the lease runs out.
	LeaseOwner string
	LeaseGen   int64
	LeaseUntil time.Time

	// Revision is the stored version: Put succeeds only when it matches, and then adds one.
	Revision int64
}

// Limits bound what Create admits; zero means the default.
type Limits struct {
	// MaxTasks bounds the tasks a store holds, terminal ones included, until reaped
	// (default DefaultMaxTasks).
	MaxTasks int
	// MaxActivePerScope bounds the non-terminal tasks of one principal
	// (default DefaultMaxActivePerScope).
	MaxActivePerScope int
}

// Defaults of Limits.
const (
	DefaultMaxTasks          = 10_000
	DefaultMaxActivePerScope = 100
)

// Bounds returns the limits with their defaults filled in, as a store applies them.
func (l Limits) Bounds() (maxTasks, maxActive int) {
	maxTasks, maxActive = l.MaxTasks, l.MaxActivePerScope
	if maxTasks <= 0 {
		maxTasks = DefaultMaxTasks
	}
	if maxActive <= 0 {
		maxActive = DefaultMaxActivePerScope
	}
	return maxTasks, maxActive
}

// Store errors. Stores wrap or return these exact values, so callers test with errors.Is.
var (
	// ErrNotFound: no such task, or it has expired (CreatedAt+TTL has passed).
	ErrNotFound = errors.New("tasks: task not found")
	// ErrExists: Create found a task with the same id.
	ErrExists = errors.New("tasks: task exists")
	// ErrConflict: Put found another revision stored (a concurrent write won).
	ErrConflict = errors.New("tasks: revision conflict")
	// ErrLeaseLost: a fenced write or Renew found another lease generation stored, or the
	// lease had run out: another worker may own the task now.
	ErrLeaseLost = errors.New("tasks: lease lost")
)

// CapacityError is Create's refusal at a limit; Limit names the option ("MaxTasks" or
// "MaxActivePerScope").
type CapacityError struct{ Limit string }

func (e *CapacityError) Error() string { return "tasks: task capacity exhausted (" + e.Limit + ")" }

// Store keeps tasks durably. Every method is safe for concurrent use, from several processes
// where the store is shared (SQLite file, PostgreSQL). Each write is atomic: a crash leaves
// the task as it was before the call or as the call wrote it. Time for leases and expiry is
// the store's clock (PostgreSQL: the database's).
type Store interface {
	// Create stores t (Revision becomes 1; lease fields empty) with its Work, atomically, and
	// returns only once a Get would find it. It enforces lim atomically (*CapacityError).
	Create(ctx context.Context, t *Task, lim Limits) error
	// Get returns the task with id, or ErrNotFound (also when expired). The caller compares
	// Scope.
	Get(ctx context.Context, id string) (*Task, error)
	// Put writes t's non-lease fields if the stored Revision equals t.Revision, and then sets
	// t.Revision to the new one; ErrConflict otherwise. A fence above zero also requires the
	// stored LeaseGen to equal it and the lease to be unexpired (ErrLeaseLost): a worker's
	// writes. A terminal stored task is never overwritten (ErrConflict).
	Put(ctx context.Context, t *Task, fence int64) error
	// ClaimNext leases one runnable task (status working, not CancelRequested-and-unleased,
	// lease absent or expired, NotBefore passed) to worker for leaseFor: LeaseGen gains one,
	// Attempt gains one. It returns (nil, nil) when none is runnable. Concurrent claimers
	// never get the same task (PostgreSQL: FOR UPDATE SKIP LOCKED).
	ClaimNext(ctx context.Context, worker string, leaseFor time.Duration) (*Task, error)
	// Renew extends the lease of generation fence by leaseFor and reports whether the task's
	// cancellation was requested; ErrLeaseLost if the generation changed or the lease ran out.
	// It does not change Revision.
	Renew(ctx context.Context, id string, fence int64, leaseFor time.Duration) (cancelRequested bool, err error)
	// Release gives up the lease of generation fence at once (shutdown, input_required), so
	// another worker may claim the task without waiting for it to run out.
	Release(ctx context.Context, id string, fence int64) error
	// Reap deletes up to limit expired tasks and returns how many it deleted.
	Reap(ctx context.Context, limit int) (int, error)
	// Close releases the store's resources (not a pool the application passed in).
	Close() error
}
