package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/fastmcp-go/fastmcp/decode"
)

// CallToolTask calls the tool name as [Client.CallTool] does, declaring the tasks extension
// (clientCapabilities.extensions["io.modelcontextprotocol/tasks"] = {}) on this request only.
// The server decides: it answers with the tool's result (result non-nil, task nil) or with a
// task (a CreateTaskResult: task non-nil, result nil) to follow with the handle's Get,
// Update, Cancel and Await. Multi round-trip rounds before the task are answered by the
// configured handlers, as in CallTool, each retry declaring the extension too.
//
// On an initialize-era connection the extension is not defined: the request is a plain
// tools/call and the answer always a result.
func (c *Client) CallToolTask(ctx context.Context, name string, args any, opts ...CallOption) (result *CallToolResult, task *TaskHandle, err error) {
	o := applyOpts(opts)
	o.tasks = true
	res, err := c.callToolResult(ctx, name, args, o)
	if err != nil {
		return nil, nil, err
	}
	if !resultTypeIs(res, "task") {
		return toolResult(res), nil, nil
	}
	d, err := parseTask(res, "task", false)
	if err != nil {
		return nil, nil, err
	}
	h := c.Task(d.ID)
	h.Created, h.CreatedRaw = d.Task, res
	return nil, h, nil
}

// TaskHandle is a task the server created. It is safe for concurrent use.
type TaskHandle struct {
	// ID is the task's id: keep it to come back to the task later with [Client.Task].
	ID string
	// Created is the task as its CreateTaskResult described it (zero for a handle made by
	// Client.Task), and CreatedRaw that result as the server sent it (nil then).
	Created    Task
	CreatedRaw json.RawMessage

	c *Client
	// inputMu serializes answering input requests; answered holds the keys whose answers
	// the server acknowledged, so each is answered once.
	inputMu  sync.Mutex
	answered map[string]bool
}

// Task returns a handle for the task id, for example one kept from an earlier process.
func (c *Client) Task(id string) *TaskHandle {
	return &TaskHandle{ID: id, c: c, answered: map[string]bool{}}
}

// Get asks for the task's current state (tasks/get).
func (h *TaskHandle) Get(ctx context.Context) (*TaskDetail, error) {
	res, err := h.request(ctx, "tasks/get", nil)
	if err != nil {
		return nil, err
	}
	d, err := parseTask(res, "complete", true)
	if err != nil {
		return nil, err
	}
	if d.ID != h.ID {
		return nil, fmt.Errorf("%w: tasks/get for %s answered for %s", ErrMalformed, h.ID, d.ID)
	}
	return d, nil
}

// Update answers the task's input requests (tasks/update): responses maps each key of
// TaskDetail.InputRequests to its result object (an ElicitResult, a CreateMessageResult, a
// ListRootsResult). Keys may be answered a few at a time; the server ignores keys that are not
// outstanding. The ack may come before the task changes. Await answers input requests by
// itself; keys answered here are not answered again by it.
func (h *TaskHandle) Update(ctx context.Context, responses map[string]json.RawMessage) error {
	obj, err := json.Marshal(responses)
	if err != nil {
		return &opError{"input responses of task " + h.ID, err}
	}
	h.inputMu.Lock()
	defer h.inputMu.Unlock()
	if err := h.update(ctx, obj); err != nil {
		return err
	}
	for k := range responses {
		h.answered[k] = true
	}
	return nil
}

// update sends tasks/update with inputResponses obj (a JSON object).
func (h *TaskHandle) update(ctx context.Context, obj []byte) error {
	_, err := h.request(ctx, "tasks/update", append([]byte(`,"inputResponses":`), obj...))
	return err
}

// Cancel asks the server to cancel the task (tasks/cancel). The ack may come before the task
// is cancelled, and a task already terminal stays as it was; Get or Await tell how it ended.
func (h *TaskHandle) Cancel(ctx context.Context) error {
	_, err := h.request(ctx, "tasks/cancel", nil)
	return err
}

// request sends a tasks/* method for this task, declaring the extension, with Mcp-Name set to
// the task id over HTTP. extra are more params members, each with its leading comma.
func (h *TaskHandle) request(ctx context.Context, method string, extra []byte) ([]byte, error) {
	c := h.c
	if !c.modern {
		return nil, fmt.Errorf("%w: %s", ErrTasksNotDefined, method)
	}
	members := decode.AppendString(make([]byte, 0, len(h.ID)+len(extra)+16), h.ID, false)
	members = append(append([]byte(`"taskId":`), members...), extra...)
	hdr := headers{name: headerValue(h.ID)}
	res, err := c.request(ctx, method, members, &hdr, &callOpts{tasks: true})
	var e *Error
	if errors.As(err, &e) && e.Code == CodeInvalidParams {
		return nil, fmt.Errorf("%w %s (%s): %w", ErrUnknownTask, h.ID, method, err)
	}
	return res, err
}
