package client

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/fastmcp-go/fastmcp/decode"
)

// TasksExtension names the Tasks extension (SEP-2663) in clientCapabilities.extensions and
// in a server's capabilities.extensions.
const TasksExtension = "io.modelcontextprotocol/tasks"

// TaskStatus is a task's status. Completed, Failed and Cancelled are terminal: a task that
// reached one never changes again.
type TaskStatus string

// The statuses of a task.
const (
	TaskWorking       TaskStatus = "working"
	TaskInputRequired TaskStatus = "input_required"
	TaskCompleted     TaskStatus = "completed"
	TaskFailed        TaskStatus = "failed"
	TaskCancelled     TaskStatus = "cancelled"
)

// Terminal reports whether s is completed, failed or cancelled.
func (s TaskStatus) Terminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

func (s TaskStatus) valid() bool { return s.Terminal() || s == TaskWorking || s == TaskInputRequired }

// Task is a task's state: what a CreateTaskResult says, and the common part of every
// tasks/get answer.
type Task struct {
	ID            string
	Status        TaskStatus
	StatusMessage string
	// CreatedAt and LastUpdatedAt are the server's ISO 8601 times, zero when they are not
	// RFC 3339 (the client reads them, it does not judge them).
	CreatedAt, LastUpdatedAt time.Time
	// TTL is ttlMs, counted from CreatedAt, after which the server may forget the task;
	// 0 when ttlMs is null (unlimited).
	TTL time.Duration
	// PollInterval is pollIntervalMs, 0 when the server gave none.
	PollInterval time.Duration
}

// TaskDetail is a tasks/get answer (or a notifications/tasks): the Task and the payload of
// its status.
type TaskDetail struct {
	Task
	// InputRequests holds, while input_required, every outstanding request for input by key:
	// {"key":{"method":"elicitation/create","params":{…}},…}, as in a multi round-trip
	// input_required result.
	InputRequests json.RawMessage
	// Result is the tool's result once completed (a tool error is a completed task whose
	// Result has IsError).
	Result *CallToolResult
	// Error is the JSON-RPC error a failed task ended with.
	Error *Error
	// Raw is the whole answer as the server sent it.
	Raw json.RawMessage
}

// Err says how a terminal task ended: nil when it completed (look at Result.IsError for a
// tool error), an error matching ErrTaskFailed and wrapping the task's *Error when it failed,
// ErrTaskCancelled when it was cancelled. It is nil for a task still running.
func (d *TaskDetail) Err() error {
	switch d.Status {
	case TaskFailed:
		return fmt.Errorf("%w: %s: %w", ErrTaskFailed, d.ID, d.Error)
	case TaskCancelled:
		return fmt.Errorf("%w: %s", ErrTaskCancelled, d.ID)
	}
	return nil
}

// taskWire is the wire form of a CreateTaskResult, a GetTaskResult and notifications/tasks
// params.
type taskWire struct {
	ResultType     *string         `json:"resultType"`
	TaskID         string          `json:"taskId"`
	Status         TaskStatus      `json:"status"`
	StatusMessage  string          `json:"statusMessage"`
	CreatedAt      string          `json:"createdAt"`
	LastUpdatedAt  string          `json:"lastUpdatedAt"`
	TTLMs          *int64          `json:"ttlMs"`
	PollIntervalMs *int64          `json:"pollIntervalMs"`
	InputRequests  json.RawMessage `json:"inputRequests"`
	Result         json.RawMessage `json:"result"`
	Error          *Error          `json:"error"`
}

// parseTask reads raw, a task answer whose resultType must be resultType ("task" for a
// CreateTaskResult, "complete" for tasks/get, "" for a notification, which has none). A
// detailed answer must carry the payload its status requires.
func parseTask(raw []byte, resultType string, detailed bool) (*TaskDetail, error) {
	var w taskWire
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("%w: task: %v", ErrMalformed, err)
	}
	got := ""
	if w.ResultType != nil {
		got = *w.ResultType
	}
	switch {
	case got != resultType:
		return nil, fmt.Errorf("%w: task answer with resultType %q, want %q", ErrMalformed, got, resultType)
	case w.TaskID == "":
		return nil, fmt.Errorf("%w: task answer without a taskId", ErrMalformed)
	case !w.Status.valid():
		return nil, fmt.Errorf("%w: task %s has status %q", ErrMalformed, w.TaskID, w.Status)
	}
	d := &TaskDetail{Raw: raw, Task: Task{ID: w.TaskID, Status: w.Status, StatusMessage: w.StatusMessage}}
	d.CreatedAt, _ = time.Parse(time.RFC3339Nano, w.CreatedAt)
	d.LastUpdatedAt, _ = time.Parse(time.RFC3339Nano, w.LastUpdatedAt)
	if w.TTLMs != nil {
		d.TTL = millis(*w.TTLMs)
	}
	if w.PollIntervalMs != nil {
		d.PollInterval = millis(*w.PollIntervalMs)
	}
	if !detailed {
		return d, nil
	}
	switch w.Status {
	case TaskInputRequired:
		if decode.Lookup(raw, "inputRequests").Type() != decode.TypeObject {
			return nil, fmt.Errorf("%w: task %s is input_required without an inputRequests object", ErrMalformed, w.TaskID)
		}
		d.InputRequests = w.InputRequests
	case TaskCompleted:
		if decode.Lookup(raw, "result").Type() != decode.TypeObject {
			return nil, fmt.Errorf("%w: task %s is completed without a result object", ErrMalformed, w.TaskID)
		}
		d.Result = toolResult(w.Result)
	case TaskFailed:
		if w.Error == nil || w.Error.Message == "" && w.Error.Code == 0 {
			return nil, fmt.Errorf("%w: task %s is failed without an error object", ErrMalformed, w.TaskID)
		}
		d.Error = w.Error
	}
	return d, nil
}

// millis is n milliseconds: 0 for n ≤ 0, the longest Duration for more than it holds (ttlMs
// may be as large as 2^53-1).
func millis(n int64) time.Duration {
	if n <= 0 {
		return 0
	}
	if n > math.MaxInt64/int64(time.Millisecond) {
		return math.MaxInt64
	}
	return time.Duration(n) * time.Millisecond
}

// resultTypeIs reports whether the result object res has resultType want, allocating
// nothing unless the value is escaped.
func resultTypeIs(res []byte, want string) bool {
	v := decode.Lookup(res, "resultType")
	if v.Type() != decode.TypeString {
		return false
	}
	if t := v.Text(); t != nil {
		return string(t) == want
	}
	return text(res, "resultType") == want
}

// taskAllowed reports whether a request may be answered with a task: only a modern
// tools/call that declared the extension (the spec: a CreateTaskResult for any other request
// is an invalid response).
func taskAllowed(modern bool, method string, o *callOpts) bool {
	return modern && method == "tools/call" && o != nil && o.tasks
}

// withTasksExtension returns the clientCapabilities object caps with the tasks extension
// declared: extensions[TasksExtension] = {}.
func withTasksExtension(caps []byte) []byte {
	out := append([]byte(nil), caps[:len(caps)-1]...)
	if len(caps) > 2 {
		out = append(out, ',')
	}
	return append(out, `"extensions":{"`+TasksExtension+`":{}}}`...)
}

// requiresTasks reports whether a -32021's data names the tasks extension among its
// requiredCapabilities.
func requiresTasks(data []byte) bool {
	req := decode.Lookup(data, "requiredCapabilities")
	return decode.Lookup(decode.Lookup(req.Raw(), "extensions").Raw(), TasksExtension).Present()
}

// errNotTerminal says what an Await saw last when it gave up.
func errNotTerminal(id string, last TaskStatus, cause error) error {
	if last == "" {
		return &opError{"awaiting task " + id, cause}
	}
	return fmt.Errorf("client: task %s still %s: %w", id, last, cause)
}
