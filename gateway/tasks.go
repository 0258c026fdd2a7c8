package gateway

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// A backend that declares the tasks extension has its tasks pass through: the Gateway
// serves the extension (once a backend declares it), a caller's tools/call that declares it
// for that backend's tool is sent to the backend declaring it too, and the backend's
// CreateTaskResult reaches the caller under a task id of the Gateway's (taskid.go), by
// which tasks/get, tasks/update and tasks/cancel reach the backend's task again, from any
// replica.

// tasksExtension is the extension's id.
const tasksExtension = "io.modelcontextprotocol/tasks"

var (
	errUnknownTask   = fastmcp.NewError(fastmcp.CodeInvalidParams, "Invalid params: unknown task", nil)
	taskAck          = json.RawMessage(`{"resultType":"complete"}`)
	errTaskResponses = fastmcp.NewError(fastmcp.CodeInvalidParams, "Invalid params: inputResponses must be an object", nil)
)

// noteTasks records whether the backend declares the tasks extension, and has the Gateway
// serve it the first time one does.
func (b *backend) noteTasks(caps capabilities) {
	_, ok := caps.Extensions[tasksExtension]
	b.tasks.Store(ok)
	if ok && !b.g.cfg.NoTaskPassThrough {
		b.g.tasksOn.Do(b.g.serveTasks)
	}
}

// serveTasks registers the pass-through extension.
func (g *Gateway) serveTasks() {
	g.srv.AddExtension(fastmcp.Extension{
		ID: tasksExtension,
		Methods: map[string]fastmcp.ExtensionMethod{
			"tasks/get":    {Serve: g.taskGet, NamedBy: "taskId"},
			"tasks/update": {Serve: g.taskUpdate, NamedBy: "taskId"},
			"tasks/cancel": {Serve: g.taskCancel, NamedBy: "taskId"},
		},
		ToolCall: fastmcp.ToolCallHook{Take: g.taskTake, Start: g.taskStart},
		Listen:   g.listenTasks, // tasks_listen.go
	})
}

// toolBackend is the backend serving the Gateway's tool name, and the backend's own name.
func (g *Gateway) toolBackend(name string) (*backend, string) {
	if len(g.backends) == 1 {
		return g.backends[0], name
	}
	bn, own, ok := SplitName(name)
	if !ok {
		return nil, ""
	}
	return g.backendNamed(bn), own
}

func (g *Gateway) backendNamed(name string) *backend {
	for _, b := range g.backends {
		if b.spec.Name == name {
			return b
		}
	}
	return nil
}

// taskTake takes a call that declares the extension, for a tool of a backend that does.
func (g *Gateway) taskTake(ctx context.Context, r *fastmcp.Request, tool string) (bool, error) {
	b, _ := g.toolBackend(tool)
	if b == nil || !b.tasks.Load() || !r.DeclaresExtension(tasksExtension) {
		return false, nil
	}
	c := b.current() // down (the handler answers so), or reconnected in the other era before its catalog is read again
	return c != nil && c.Modern(), nil
}

// taskStart forwards the call declaring the extension: the backend answers with a task (its
// CreateTaskResult, under the Gateway's id), a result, or a round of input requests, each
// relayed as an ordinary call's.
func (g *Gateway) taskStart(ctx context.Context, r *fastmcp.Request, tool string, args json.RawMessage) (json.RawMessage, error) {
	b, own := g.toolBackend(tool)
	c := b.current()
	if c == nil {
		return nil, b.refuseDown()
	}
	round, err := inputRound(r)
	if err != nil {
		return nil, err
	}
	rl := newRelay(ctx, r)
	defer rl.detach()
	opts := append(b.callOptions(ctx, rl, r), client.WithInputRound(round))
	args = append(json.RawMessage(nil), args...)
	type answer struct {
		res  *client.CallToolResult
		task *client.TaskHandle
	}
	a, err := guard(b.limits, ctx, func(ctx context.Context) (answer, error) {
		res, task, err := c.CallToolTask(ctx, own, args, opts...)
		return answer{res, task}, err
	})
	if err != nil {
		return nil, b.forwardError(ctx, err)
	}
	if a.task != nil {
		if !carriedTaskID(a.task.ID) {
			return nil, b.malformed(fmt.Errorf("task id %q: not at most %d bytes of visible ASCII", a.task.ID, maxBackendTaskID))
		}
		return withTaskID(a.task.CreatedRaw, g.taskIDs.issue(principal(ctx), b.spec.Name, a.task.ID)), nil
	}
	if ir, err := relayedInput(a.res.Raw); ir != nil || err != nil {
		return nil, b.inputOrMalformed(ir, err)
	}
	return a.res.Raw, nil // its _meta stays: the Server puts its own serverInfo in it
}

// task is the backend's task a caller's tasks/* request names, and its client; the error
// is the caller's answer.
func (g *Gateway) task(ctx context.Context, r *fastmcp.Request) (*backend, *client.TaskHandle, string, error) {
	id := decode.Lookup(r.Params(), "taskId")
	if id.Type() != decode.TypeString {
		return nil, nil, "", errUnknownTask
	}
	bn, own, ok := g.taskIDs.open(principal(ctx), id.String())
	b := g.backendNamed(bn)
	if !ok || b == nil {
		return nil, nil, "", errUnknownTask
	}
	c := b.current()
	if c == nil {
		return nil, nil, "", b.refuseDown()
	}
	return b, c.Task(own), id.String(), nil
}

func (g *Gateway) taskGet(ctx context.Context, r *fastmcp.Request) (json.RawMessage, error) {
	b, h, id, err := g.task(ctx, r)
	if err != nil {
		return nil, err
	}
	d, err := guard(b.limits, ctx, h.Get)
	if err != nil {
		return nil, b.forwardError(ctx, err)
	}
	return withTaskID(d.Raw, id), nil
}

func (g *Gateway) taskUpdate(ctx context.Context, r *fastmcp.Request) (json.RawMessage, error) {
	b, h, _, err := g.task(ctx, r)
	if err != nil {
		return nil, err
	}
	var responses map[string]json.RawMessage
	if v := decode.Lookup(r.Params(), "inputResponses"); v.Type() != decode.TypeObject || json.Unmarshal(v.Raw(), &responses) != nil {
		return nil, errTaskResponses
	}
	if _, err := guard(b.limits, ctx, func(ctx context.Context) (struct{}, error) { return struct{}{}, h.Update(ctx, responses) }); err != nil {
		return nil, b.forwardError(ctx, err)
	}
	return taskAck, nil
}

func (g *Gateway) taskCancel(ctx context.Context, r *fastmcp.Request) (json.RawMessage, error) {
	b, h, _, err := g.task(ctx, r)
	if err != nil {
		return nil, err
	}
	if _, err := guard(b.limits, ctx, func(ctx context.Context) (struct{}, error) { return struct{}{}, h.Cancel(ctx) }); err != nil {
		return nil, b.forwardError(ctx, err)
	}
	return taskAck, nil
}

// withTaskID is a backend's result object (decoded by the client) with taskId replaced by
// id. Its _meta stays: the Server puts its own serverInfo in it in place of the backend's.
func withTaskID(raw []byte, id string) json.RawMessage {
	quoted := decode.AppendString(nil, id, false)
	return editObject(raw, func(key, v []byte) []byte {
		if decode.KeyEquals(key, "taskId") {
			return quoted
		}
		return v
	})
}

// principal is the caller's, "" when unauthenticated.
func principal(ctx context.Context) string {
	if id := fastmcp.IdentityFrom(ctx); id != nil {
		return id.Principal
	}
	return ""
}
