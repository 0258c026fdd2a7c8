package tasks

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"runtime/debug"
	"sync"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// Tasks is the extension: its methods, its tools/call takeover, its listen filter, and the
// runner that works the store's tasks. It is safe for concurrent use.
type Tasks struct {
	store Store
	opts  Options
	lim   Limits

	srv    *fastmcp.Server
	run    *runner
	pub    publisher
	unsub  func() // ends pub's subscription to the Server's bus
	closed sync.Once

	newID func() string // test hook
}

// New returns the extension over store; call Register to serve it.
func New(store Store, opts Options) (*Tasks, error) {
	if store == nil {
		return nil, errors.Join(ErrInvalidOptions, errors.New("tasks: nil store"))
	}
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	if o.WorkerID == "" {
		o.WorkerID = "worker-" + newID()[:12]
	}
	x := &Tasks{store: store, opts: o, lim: Limits{MaxTasks: o.MaxTasks, MaxActivePerScope: o.MaxActivePerScope}, newID: newID}
	x.pub.init()
	return x, nil
}

// Register adds the extension to srv (see fastmcp.Server.AddExtension) and starts the
// runner, which claims the store's runnable tasks (those of an earlier process included).
// Call it once, before serving.
func (x *Tasks) Register(srv *fastmcp.Server) {
	if x.srv != nil {
		panic("tasks: Register called twice")
	}
	x.srv = srv
	srv.AddExtension(fastmcp.Extension{
		ID: ExtensionID,
		Methods: map[string]fastmcp.ExtensionMethod{
			"tasks/get":    {Serve: x.get, NamedBy: "taskId"},
			"tasks/update": {Serve: x.update, NamedBy: "taskId"},
			"tasks/cancel": {Serve: x.cancel, NamedBy: "taskId"},
		},
		ToolCall: fastmcp.ToolCallHook{Take: x.take, Start: x.start},
		Listen:   x.listen,
	})
	x.unsub = srv.Subscribe(x.pub.deliver)
	x.run = newRunner(x)
	x.run.start()
}

// Close stops the runner: running tasks are interrupted and their leases released, so the
// next process (or another one sharing the store) runs them again. It does not close the
// store. It waits for the workers to return.
func (x *Tasks) Close() error {
	x.closed.Do(func() {
		if x.run != nil {
			x.run.stop()
			x.unsub()
		}
	})
	return nil
}

// take decides whether a tools/call becomes a task.
func (x *Tasks) take(_ context.Context, r *fastmcp.Request, tool string) (bool, error) {
	p, ok := x.opts.Tools[tool]
	if !ok {
		return false, nil
	}
	mode, err := x.mode(p, r)
	if err != nil {
		return false, err
	}
	switch mode {
	case Optional:
		return r.DeclaresExtension(ExtensionID), nil
	case Required:
		if !r.DeclaresExtension(ExtensionID) {
			return false, fastmcp.MissingExtension(ExtensionID)
		}
		return true, nil
	}
	return false, nil
}

// mode runs a policy, which is application code: a panic there answers the call -32603
// and is logged, as a handler's.
func (x *Tasks) mode(p Policy, r *fastmcp.Request) (m Mode, err error) {
	defer func() {
		if v := recover(); v != nil {
			x.opts.Logger.Error("tasks: policy panicked", "panic", v, "stack", string(debug.Stack()))
			m, err = Sync, errPolicyPanicked
		}
	}()
	return p.Mode(r), nil
}

// start stores the task with its work and answers CreateTaskResult once a tasks/get would
// find it.
func (x *Tasks) start(ctx context.Context, r *fastmcp.Request, tool string, args json.RawMessage) (json.RawMessage, error) {
	var answers []byte
	if v := r.InputResponses(); len(v) > 0 {
		answers = v
	}
	at := now()
	t := &Task{
		Scope:  x.opts.Scope(ctx),
		Status: StatusWorking, StatusMessage: x.opts.StatusMessage,
		CreatedAt: at, UpdatedAt: at, TTL: x.opts.TTL, PollInterval: x.opts.PollInterval,
		Work:      Work{Version: 1, Tool: tool, Arguments: clone(args), Meta: clone(r.Meta())},
		Responses: clone(answers),
	}
	if workInputBytes(t) > x.opts.MaxWorkInputBytes {
		return nil, workTooLarge(x.opts.MaxWorkInputBytes)
	}
	t.ID = x.newID()
	if err := x.store.Create(ctx, t, x.lim); err != nil {
		if ce, ok := errors.AsType[*CapacityError](err); ok {
			return nil, capacityError(ce.Limit)
		}
		x.opts.Logger.Error("tasks: cannot create a task", "tool", tool, "err", err)
		return nil, errStore
	}
	x.run.wake()
	return createResult(t), nil
}

// workInputBytes is what MaxWorkInputBytes bounds: the input stored with a task's work,
// its arguments, the creating request's _meta and every answer accepted so far.
func workInputBytes(t *Task) int {
	return len(t.Work.Arguments) + len(t.Work.Meta) + len(t.Responses)
}

// newID returns an unguessable task id: 24 random bytes, base64url (RFC 9110 tchar only).
func newID() string {
	var b [24]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func clone(b []byte) json.RawMessage {
	if b == nil {
		return nil
	}
	return append(json.RawMessage(nil), b...)
}

type idKey struct{}

// IDFrom returns the id of the task whose work ctx runs, "" outside a task. It is the
// work's idempotency key: a task's work may run more than once (at-least-once: a worker that
// dies mid-run loses its lease and another reruns the work), always with the same id.
func IDFrom(ctx context.Context) string {
	id, _ := ctx.Value(idKey{}).(string)
	return id
}

// AttemptFrom returns which run of its task's work ctx runs, 1 for the first.
func AttemptFrom(ctx context.Context) int {
	if rs, ok := ctx.Value(runKey{}).(*runState); ok {
		return rs.attempt
	}
	return 0
}
