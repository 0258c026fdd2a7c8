package tasks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// ExtensionID names the extension in capabilities.extensions.
const ExtensionID = "io.modelcontextprotocol/tasks"

// Defaults of [Options].
const (
	// DefaultTTL is a task's ttlMs: it reads as unknown from createdAt+ttlMs on (1 h).
	DefaultTTL = time.Hour
	// DefaultPollInterval is the pollIntervalMs clients are told to poll at.
	DefaultPollInterval = 250 * time.Millisecond
	// DefaultStatusMessage is the statusMessage of a task just created.
	DefaultStatusMessage = "Task accepted"
	// DefaultMaxJobs bounds the tasks this process runs at once; more wait in the store.
	DefaultMaxJobs = 32
	// DefaultMaxRuntime bounds one run of a task's work; past it the task fails with -32603
	// "Task exceeded its maximum runtime".
	DefaultMaxRuntime = time.Hour
	// DefaultMaxWorkInputBytes bounds the input stored with a task's work (arguments, request
	// _meta, and every answer: those of the multi round-trip rounds before it, then those of
	// tasks/update): a larger call is answered -32602 "Invalid params: task work input
	// exceeds 262144 bytes" and creates nothing; a tasks/update that would pass it gets the
	// same error and stores none of its answers.
	DefaultMaxWorkInputBytes = 256 << 10
	// DefaultLeaseDuration is how long a worker's claim on a task lasts unless renewed; a
	// worker renews it every third of it. A worker that dies loses its tasks after at most
	// this long, and another worker reruns them (at-least-once).
	DefaultLeaseDuration = 30 * time.Second
	// DefaultClaimInterval is how often the runner asks the store for work it was not told
	// of (another process's tasks, retries coming due, leases run out).
	DefaultClaimInterval = time.Second
	// DefaultReapInterval is how often expired tasks are deleted.
	DefaultReapInterval = time.Minute
	// MaxTaskIDBytes bounds a taskId a client sends: a longer one is -32602, like an unknown
	// task.
	MaxTaskIDBytes = 256
	// MaxListenTaskIDs bounds the taskIds of one subscriptions/listen: more is -32602
	// "Invalid params: notifications.taskIds lists more than 100 task ids".
	MaxListenTaskIDs = 100
	// reapBatch is how many expired tasks one reaping pass deletes at most.
	reapBatch = 500
)

// Mode says whether a tools/call becomes a task.
type Mode int

const (
	// Sync: never a task (the default of every tool).
	Sync Mode = iota
	// Optional: a task when the request declares the extension, else served at once.
	Optional
	// Required: always a task; a request that does not declare the extension is answered
	// -32021 with data.requiredCapabilities.extensions["io.modelcontextprotocol/tasks"].
	Required
)

// Policy decides a call's Mode. A Mode is a Policy; so is a [PolicyFunc].
type Policy interface {
	Mode(r *fastmcp.Request) Mode
}

// Mode makes a Mode its own Policy.
func (m Mode) Mode(*fastmcp.Request) Mode { return m }

// PolicyFunc decides per request, after the tool is looked up and the call authorized, and
// before its arguments are validated. r.HasInputResponse tells a first multi round-trip
// round from a retry: a tool can ask its questions synchronously and become a task once
// they are answered.
type PolicyFunc func(r *fastmcp.Request) Mode

// Mode implements Policy.
func (f PolicyFunc) Mode(r *fastmcp.Request) Mode { return f(r) }

// Retry is a task's retry policy: a run whose handler called [RetryLater] runs again after
// exactly Delays[n] (n counting the retries made so far); once Delays are used up, the task
// fails with the error given to RetryLater. The delays are persisted with the task, so a
// retry survives a restart.
type Retry struct {
	Delays []time.Duration
}

// Options configures the extension. Zero values select the defaults.
type Options struct {
	// Tools maps tool names to their Policy; a tool not listed is Sync.
	Tools map[string]Policy
	// TTL is every task's ttlMs (DefaultTTL); negative means unlimited (ttlMs null).
	TTL time.Duration
	// PollInterval is pollIntervalMs (DefaultPollInterval).
	PollInterval time.Duration
	// StatusMessage of a new task (DefaultStatusMessage).
	StatusMessage string
	// MaxJobs bounds the tasks run at once by this process (DefaultMaxJobs).
	MaxJobs int
	// MaxRuntime bounds one run (DefaultMaxRuntime).
	MaxRuntime time.Duration
	// MaxTasks and MaxActivePerScope bound the store (DefaultMaxTasks,
	// DefaultMaxActivePerScope): past either, a call is answered -32603 "Task capacity
	// exhausted" with data {"retryable":true,"limit":"MaxTasks"} (or "MaxActivePerScope").
	MaxTasks, MaxActivePerScope int
	// MaxWorkInputBytes bounds a task's work input, its answers included
	// (DefaultMaxWorkInputBytes).
	MaxWorkInputBytes int
	// LeaseDuration, ClaimInterval and ReapInterval pace the runner (DefaultLeaseDuration,
	// DefaultClaimInterval, DefaultReapInterval).
	LeaseDuration, ClaimInterval, ReapInterval time.Duration
	// Retry applies to every task.
	Retry Retry
	// Scope names the principal a task belongs to; nil means the identity's Principal
	// (fastmcp.IdentityFrom), "" when there is none. Another scope's task reads as unknown.
	Scope func(ctx context.Context) string
	// WorkerID names this process's worker in leases; empty means a random one.
	WorkerID string
	// Logger receives the runner's failures; nil means slog.Default().
	Logger *slog.Logger
}

// ErrInvalidOptions is wrapped by New's error for invalid Options.
var ErrInvalidOptions = errors.New("tasks: invalid options")

func (o Options) resolve() (Options, error) {
	for _, d := range []struct {
		p   *time.Duration
		def time.Duration
		neg bool
	}{
		{&o.PollInterval, DefaultPollInterval, false}, {&o.MaxRuntime, DefaultMaxRuntime, false},
		{&o.LeaseDuration, DefaultLeaseDuration, false}, {&o.ClaimInterval, DefaultClaimInterval, false},
		{&o.ReapInterval, DefaultReapInterval, false},
	} {
		if *d.p < 0 {
			return o, fmt.Errorf("%w: negative duration %v", ErrInvalidOptions, *d.p)
		}
		if *d.p == 0 {
			*d.p = d.def
		}
	}
	if o.TTL == 0 {
		o.TTL = DefaultTTL
	} else if o.TTL < 0 {
		o.TTL = 0 // unlimited: Task.TTL zero
	}
	for _, n := range []struct {
		p   *int
		def int
	}{{&o.MaxJobs, DefaultMaxJobs}, {&o.MaxTasks, DefaultMaxTasks}, {&o.MaxActivePerScope, DefaultMaxActivePerScope}, {&o.MaxWorkInputBytes, DefaultMaxWorkInputBytes}} {
		if *n.p < 0 {
			return o, fmt.Errorf("%w: negative limit %d", ErrInvalidOptions, *n.p)
		}
		if *n.p == 0 {
			*n.p = n.def
		}
	}
	for _, d := range o.Retry.Delays {
		if d < 0 {
			return o, fmt.Errorf("%w: negative retry delay %v", ErrInvalidOptions, d)
		}
	}
	if o.StatusMessage == "" {
		o.StatusMessage = DefaultStatusMessage
	}
	if o.Scope == nil {
		o.Scope = func(ctx context.Context) string {
			if id := fastmcp.IdentityFrom(ctx); id != nil {
				return id.Principal
			}
			return ""
		}
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o, nil
}
