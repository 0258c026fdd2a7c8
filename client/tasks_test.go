package client

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks"
)

// Against the conformance fixtures in-process, in a synctest bubble (the tools sleep on its
// clock): every way a task ends, awaited by polling. The server asks for polls every 300 ms,
// so no poll coincides with the end of the tool's whole seconds.
func TestTaskEndsAwaited(t *testing.T) {
	cases := []struct {
		tool, args string
		status     TaskStatus
		after      time.Duration // the first poll after the tool's own time
		check      func(t *testing.T, d *TaskDetail)
	}{
		{"slow_compute", `{"seconds":2,"label":"pi"}`, TaskCompleted, 2100 * time.Millisecond, func(t *testing.T, d *TaskDetail) {
			require.NoError(t, d.Err())
			assert.JSONEq(t, `[{"type":"text","text":"Computed pi in 2 s"}]`, string(d.Result.Content))
			assert.False(t, d.Result.IsError)
		}},
		{"failing_job", `{}`, TaskCompleted, 1200 * time.Millisecond, func(t *testing.T, d *TaskDetail) {
			require.NoError(t, d.Err(), "a tool error completes the task")
			assert.True(t, d.Result.IsError)
			assert.JSONEq(t, `[{"type":"text","text":"The job failed, as it always does"}]`, string(d.Result.Content))
		}},
		{"protocol_error_job", `{}`, TaskFailed, 0, func(t *testing.T, d *TaskDetail) {
			assert.Nil(t, d.Result)
			err := d.Err()
			require.ErrorIs(t, err, ErrTaskFailed)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, &Error{Code: -32603, Message: "The job hit a protocol error, as it always does"}, e)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.tool, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c, sent := directTasks(t, tasksServer(t, tasks.Options{PollInterval: 300 * time.Millisecond}), Config{})
				ctx := context.Background()
				start := time.Now()
				res, h, err := c.CallToolTask(ctx, tc.tool, json.RawMessage(tc.args))
				require.NoError(t, err)
				require.Nil(t, res)
				require.NotNil(t, h)
				assert.Len(t, h.ID, 32, "24 random bytes in base64url")
				assert.Equal(t, Task{ID: h.ID, Status: TaskWorking, StatusMessage: "Task accepted", CreatedAt: start.UTC(),
					LastUpdatedAt: start.UTC(), TTL: time.Hour, PollInterval: 300 * time.Millisecond}, h.Created)

				synctest.Wait() // the runner took the task: the first poll sees what it did at once
				d, err := h.Await(ctx)
				require.NoError(t, err)
				assert.Equal(t, tc.status, d.Status)
				assert.Equal(t, h.ID, d.ID)
				assert.Equal(t, tc.after, time.Since(start), "polled every pollIntervalMs")
				tc.check(t, d)
				assert.Equal(t, 1+int(tc.after/(300*time.Millisecond)), sent.count("tasks/get"))
				sent.requireValid(t)
			})
		})
	}
}

// A running task cancelled: Cancel acks, Await sees cancelled, a second Cancel of the now
// terminal task is the same ack.
func TestTaskCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, sent := directTasks(t, tasksServer(t, tasks.Options{}), Config{})
		ctx := context.Background()
		_, h, err := c.CallToolTask(ctx, "slow_compute", map[string]any{"seconds": 60, "label": "long"})
		require.NoError(t, err)
		d, err := h.Get(ctx)
		require.NoError(t, err)
		assert.Equal(t, TaskWorking, d.Status)
		assert.Nil(t, d.Err(), "a running task has no outcome yet")

		require.NoError(t, h.Cancel(ctx))
		d, err = h.Await(ctx)
		require.NoError(t, err)
		assert.Equal(t, TaskCancelled, d.Status)
		assert.Equal(t, "Task cancelled", d.StatusMessage)
		require.ErrorIs(t, d.Err(), ErrTaskCancelled)
		require.NoError(t, h.Cancel(ctx), "cancelling a terminal task is the same empty ack")
		sent.requireValid(t)
	})
}

// confirm_delete becomes input_required; Await answers its one key with Config.Elicitation,
// once, and the task completes.
func TestTaskInputAnswered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var asked []string
		cfg := Config{Elicitation: accept(`{"confirm":true}`, &asked, &mu)}
		c, sent := directTasks(t, tasksServer(t, tasks.Options{}), cfg)
		ctx := context.Background()
		_, h, err := c.CallToolTask(ctx, "confirm_delete", map[string]string{"filename": "a.txt"})
		require.NoError(t, err)
		synctest.Wait() // the runner has asked
		d, err := h.Get(ctx)
		require.NoError(t, err)
		require.Equal(t, TaskInputRequired, d.Status)
		assert.JSONEq(t, `{"confirm":{"method":"elicitation/create","params":{"mode":"form","message":"Delete a.txt?",`+
			`"requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean","description":"Delete it?"}},"required":["confirm"]}}}}`,
			string(d.InputRequests))

		d, err = h.Await(ctx)
		require.NoError(t, err)
		assert.Equal(t, TaskCompleted, d.Status)
		assert.JSONEq(t, `[{"type":"text","text":"Deleted a.txt"}]`, string(d.Result.Content))
		assert.Equal(t, []string{"Delete a.txt?"}, asked, "each key is answered once")
		assert.Equal(t, 1, sent.count("tasks/update"))
		sent.requireValid(t)
	})
}

// multi_input asks two keys at once; Update answers one, the next Get shows only the other,
// and Await answers that one alone.
func TestTaskInputOneKeyAtATime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var asked []string
		cfg := Config{Elicitation: accept(`{"name":"partial-2","confirm":true}`, &asked, &mu)}
		c, sent := directTasks(t, tasksServer(t, tasks.Options{}), cfg)
		ctx := context.Background()
		_, h, err := c.CallToolTask(ctx, "multi_input", nil)
		require.NoError(t, err)
		synctest.Wait()
		d, err := h.Get(ctx)
		require.NoError(t, err)
		require.Equal(t, TaskInputRequired, d.Status)
		assert.Equal(t, []string{"first", "second"}, keys(t, d.InputRequests))

		require.NoError(t, h.Update(ctx, map[string]json.RawMessage{
			"first": json.RawMessage(`{"action":"accept","content":{"name":"partial-1","confirm":true}}`)}))
		d, err = h.Get(ctx)
		require.NoError(t, err)
		require.Equal(t, TaskInputRequired, d.Status, "a partial answer keeps the task waiting")
		assert.Equal(t, []string{"second"}, keys(t, d.InputRequests))

		d, err = h.Await(ctx)
		require.NoError(t, err)
		assert.Equal(t, TaskCompleted, d.Status)
		assert.JSONEq(t, `[{"type":"text","text":"Received partial-1 and partial-2"}]`, string(d.Result.Content))
		assert.Equal(t, []string{"Your second input"}, asked, "the key answered by Update is not asked again")
		assert.Equal(t, 2, sent.count("tasks/update"))
		sent.requireValid(t)
	})
}

// test_tool_with_task asks its question synchronously (multi round-trip, answered by the
// handler and retried with the extension declared again), and the retry becomes the task.
func TestTaskAfterMRTR(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var asked []string
		c, sent := directTasks(t, tasksServer(t, tasks.Options{}), Config{Elicitation: accept(`{"name":"Alice"}`, &asked, &mu)})
		ctx := context.Background()
		res, h, err := c.CallToolTask(ctx, "test_tool_with_task", nil)
		require.NoError(t, err)
		require.Nil(t, res)
		require.NotNil(t, h)
		assert.Equal(t, []string{"What is your name?"}, asked)
		assert.Equal(t, 2, sent.count("tools/call"), "the first round, then its retry")

		d, err := h.Await(ctx)
		require.NoError(t, err)
		assert.Equal(t, TaskCompleted, d.Status)
		assert.JSONEq(t, `[{"type":"text","text":"Hello, Alice, from a task!"}]`, string(d.Result.Content))
		assert.Len(t, asked, 1)
		sent.requireValid(t)
	})
}

// The server decides: a sync tool answers a declaring call with its result, an optional one
// answers a plain CallTool at once, and a required one refuses it with -32021.
func TestTaskServerDecides(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, sent := directTasks(t, tasksServer(t, tasks.Options{}), Config{})
		ctx := context.Background()
		res, h, err := c.CallToolTask(ctx, "greet", map[string]string{"name": "World"})
		require.NoError(t, err)
		assert.Nil(t, h)
		assert.JSONEq(t, `[{"type":"text","text":"Hello, World!"}]`, string(res.Content))

		r, err := c.CallTool(ctx, "slow_compute", map[string]any{"seconds": 0, "label": "now"})
		require.NoError(t, err)
		assert.JSONEq(t, `[{"type":"text","text":"Computed now in 0 s"}]`, string(r.Content))

		_, err = c.CallTool(ctx, "failing_job", nil)
		require.ErrorIs(t, err, ErrTasksRequired)
		require.ErrorIs(t, err, ErrMissingCapability)
		var e *Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, int64(CodeMissingCapability), e.Code)
		assert.JSONEq(t, `{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`, string(e.Data))
		sent.requireValid(t)
	})
}

// An unknown task is -32602 on tasks/get, tasks/update and tasks/cancel: ErrUnknownTask,
// wrapping the server's *Error.
func TestUnknownTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, sent := directTasks(t, tasksServer(t, tasks.Options{}), Config{})
		ctx := context.Background()
		h := c.Task("tasks-conformance-nonexistent-12345")
		_, err := h.Get(ctx)
		requireUnknown(t, err)
		requireUnknown(t, h.Update(ctx, map[string]json.RawMessage{"k": json.RawMessage(`{}`)}))
		requireUnknown(t, h.Cancel(ctx))
		_, err = h.Await(ctx)
		requireUnknown(t, err)
		sent.requireValid(t)
	})
}

func requireUnknown(t *testing.T, err error) {
	t.Helper()
	require.ErrorIs(t, err, ErrUnknownTask)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, &Error{Code: CodeInvalidParams, Message: "Invalid params: unknown task"}, e)
}

// Await gives up after Config.TaskAwaitTimeout (default 60 s) when its context has no
// deadline, and at the context's deadline otherwise, with an error wrapping
// context.DeadlineExceeded; the task keeps running.
func TestTaskAwaitTimeout(t *testing.T) {
	cases := []struct {
		name     string
		cfg      time.Duration
		deadline time.Duration // 0: none
		want     time.Duration
	}{
		{"default", 0, 0, DefaultTaskAwaitTimeout},
		{"configured", 5 * time.Second, 0, 5 * time.Second},
		{"context", 5 * time.Second, 3 * time.Second, 3 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c, _ := directTasks(t, tasksServer(t, tasks.Options{}), Config{TaskAwaitTimeout: tc.cfg})
				ctx := context.Background()
				_, h, err := c.CallToolTask(ctx, "slow_compute", map[string]any{"seconds": 600})
				require.NoError(t, err)
				if tc.deadline > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tc.deadline)
					defer cancel()
				}
				start := time.Now()
				_, err = h.Await(ctx)
				require.ErrorIs(t, err, context.DeadlineExceeded)
				assert.EqualError(t, err, "client: task "+h.ID+" still working: context deadline exceeded")
				assert.Equal(t, tc.want, time.Since(start))
				d, err := h.Get(context.Background())
				require.NoError(t, err)
				assert.Equal(t, TaskWorking, d.Status, "giving up does not cancel the task")
				require.NoError(t, h.Cancel(context.Background()))
			})
		})
	}
}

// A server asking for polls every 10 ms gets them every MinTaskPollInterval (50 ms). Await
// starts 25 ms after the tool, so no poll coincides with its end.
func TestTaskPollIntervalFloor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, sent := directTasks(t, tasksServer(t, tasks.Options{PollInterval: 10 * time.Millisecond}), Config{})
		ctx := context.Background()
		_, h, err := c.CallToolTask(ctx, "slow_compute", map[string]any{"seconds": 1})
		require.NoError(t, err)
		assert.Equal(t, 10*time.Millisecond, h.Created.PollInterval)
		time.Sleep(25 * time.Millisecond)
		start := time.Now()
		d, err := h.Await(ctx)
		require.NoError(t, err)
		assert.Equal(t, TaskCompleted, d.Status)
		assert.Equal(t, time.Second, time.Since(start))
		assert.Equal(t, 1+int(time.Second/MinTaskPollInterval), sent.count("tasks/get"))
	})
}

func TestPollWait(t *testing.T) {
	assert.Equal(t, DefaultTaskPollInterval, pollWait(0), "the server gave no pollIntervalMs")
	assert.Equal(t, MinTaskPollInterval, pollWait(time.Millisecond))
	assert.Equal(t, 300*time.Millisecond, pollWait(300*time.Millisecond))
}

// AwaitListen takes the server's notifications/tasks: it returns when the task completes,
// between two of its (ten times rarer) polls.
func TestTaskAwaitListen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, sent := directTasks(t, tasksServer(t, tasks.Options{PollInterval: 400 * time.Millisecond}), Config{})
		ctx := context.Background()
		_, h, err := c.CallToolTask(ctx, "slow_compute", map[string]any{"seconds": 5, "label": "e"})
		require.NoError(t, err)
		start := time.Now()
		d, err := h.AwaitListen(ctx)
		require.NoError(t, err)
		assert.Equal(t, TaskCompleted, d.Status)
		assert.JSONEq(t, `[{"type":"text","text":"Computed e in 5 s"}]`, string(d.Result.Content))
		assert.Equal(t, 5*time.Second, time.Since(start), "the notification, not a poll (at 0, 4 and 8 s)")
		assert.Equal(t, 2, sent.count("tasks/get"))
		assert.Equal(t, 1, sent.count("subscriptions/listen"))
		synctest.Wait() // the subscription has wound down
		sent.requireValid(t)
	})
}

// keys lists an object's keys in order.
func keys(t *testing.T, obj json.RawMessage) []string {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(obj, &m))
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// A client without an elicitation handler does not declare elicitation, so the server fails
// the task that needs it with -32021 (ErrMissingCapability through d.Err). A handler that
// panics ends the Await with its error, sends no tasks/update and leaves the task waiting; a
// later Await with an answer completes it.
func TestTaskInputUnanswered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := tasksServer(t, tasks.Options{})
		ctx := context.Background()
		plain, _ := directTasks(t, srv, Config{})
		_, h, err := plain.CallToolTask(ctx, "confirm_delete", map[string]string{"filename": "c.txt"})
		require.NoError(t, err)
		synctest.Wait()
		d, err := h.Await(ctx)
		require.NoError(t, err)
		assert.Equal(t, TaskFailed, d.Status)
		require.ErrorIs(t, d.Err(), ErrTaskFailed)
		require.ErrorIs(t, d.Err(), ErrMissingCapability)

		var panicked atomic.Bool
		c, sent := directTasks(t, srv, Config{Elicitation: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			panicked.Store(true)
			panic("boom")
		}})
		_, h, err = c.CallToolTask(ctx, "confirm_delete", map[string]string{"filename": "c.txt"})
		require.NoError(t, err)
		synctest.Wait()
		_, err = h.Await(ctx)
		assert.EqualError(t, err, `client: task `+h.ID+` input request "confirm" (elicitation/create): the elicitation/create handler panicked: boom`)
		assert.True(t, panicked.Load())
		assert.Zero(t, sent.count("tasks/update"))
		d, err = h.Get(ctx)
		require.NoError(t, err)
		assert.Equal(t, TaskInputRequired, d.Status)

		var mu sync.Mutex
		var asked []string
		answering, _ := directTasks(t, srv, Config{Elicitation: accept(`{"confirm":false}`, &asked, &mu)})
		d, err = answering.Task(h.ID).Await(ctx)
		require.NoError(t, err)
		assert.JSONEq(t, `[{"type":"text","text":"Kept c.txt"}]`, string(d.Result.Content))
	})
}

// The pacing of Await and AwaitListen: the poll interval alone; ten times it while a
// subscription carries the task's notifications, the state of one about this task returned
// at once (others ignored); the interval again once the stream ends.
func TestWaiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		w := waiter{h: &TaskHandle{ID: "t1"}, interval: 100 * time.Millisecond}
		elapsed := func() time.Duration {
			start := time.Now()
			d, err := w.wait(ctx)
			require.NoError(t, err)
			assert.Nil(t, d, "time to poll")
			return time.Since(start)
		}
		assert.Equal(t, 100*time.Millisecond, elapsed())

		notes := make(chan Notification, 2)
		w.notes = notes
		assert.Equal(t, time.Second, elapsed(), "listening: polls ten times rarer")

		notes <- Notification{Method: "notifications/tasks", Params: json.RawMessage(`{"taskId":"t2","status":"cancelled"}`)}
		notes <- Notification{Method: "notifications/tasks", Params: json.RawMessage(`{"taskId":"t1","status":"cancelled","ttlMs":null}`)}
		d, err := w.wait(ctx)
		require.NoError(t, err)
		require.NotNil(t, d)
		assert.Equal(t, Task{ID: "t1", Status: TaskCancelled}, d.Task)

		go func() {
			time.Sleep(300 * time.Millisecond)
			close(notes)
		}()
		assert.Equal(t, 400*time.Millisecond, elapsed(), "the stream ended at 300 ms: the next poll is an interval later")
		assert.Nil(t, w.notes)

		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err = w.wait(cctx)
		assert.ErrorIs(t, err, context.Canceled)
	})
}
