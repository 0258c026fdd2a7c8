package client

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/fastmcp-go/fastmcp/decode"
)

// Pacing of Await.
const (
	// DefaultTaskAwaitTimeout bounds an Await whose context has no deadline, unless
	// Config.TaskAwaitTimeout says otherwise.
	DefaultTaskAwaitTimeout = 60 * time.Second
	// MinTaskPollInterval is the shortest wait between two tasks/get of an Await, whatever
	// pollIntervalMs the server asks for.
	MinTaskPollInterval = 50 * time.Millisecond
	// DefaultTaskPollInterval is the wait between two tasks/get when the server gives no
	// pollIntervalMs.
	DefaultTaskPollInterval = time.Second
	// listenPollFactor stretches the poll interval of an AwaitListen whose subscription the
	// server acknowledged: notifications carry the changes, polls only catch missed ones.
	listenPollFactor = 10
)

// Await waits for the task to end and returns its last state (Completed, Failed or
// Cancelled; TaskDetail.Err tells them apart). It polls tasks/get, first at once, then every
// pollIntervalMs of the server's latest answer (DefaultTaskPollInterval when it gives none,
// never more often than MinTaskPollInterval). While the task is input_required it answers
// each outstanding key once with the configured handlers (Config.Elicitation, Sampling,
// Roots), then sends the answers with tasks/update; a key no handler answers ends the Await
// with an error matching ErrNoHandler, and the task stays input_required.
//
// Await gives up when ctx ends or, for a ctx without a deadline, after Config.TaskAwaitTimeout
// (default 60 s), with an error wrapping context.DeadlineExceeded. Giving up does not cancel
// the task: Cancel does.
func (h *TaskHandle) Await(ctx context.Context) (*TaskDetail, error) {
	return h.await(ctx, false)
}

// AwaitListen is Await that also opens a subscriptions/listen stream with
// notifications.taskIds for the task and takes each notifications/tasks on it as a fresh
// tasks/get answer. A server may send none (they are optional): when it does not acknowledge
// the task id, AwaitListen polls as Await does; when it does, it still polls, ten times less
// often, for notifications the server did not deliver.
func (h *TaskHandle) AwaitListen(ctx context.Context) (*TaskDetail, error) {
	return h.await(ctx, true)
}

func (h *TaskHandle) await(ctx context.Context, listen bool) (*TaskDetail, error) {
	if !h.c.modern {
		return nil, fmt.Errorf("%w: await", ErrTasksNotDefined)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, h.c.cfg.TaskAwaitTimeout)
		defer cancel()
	}
	w := waiter{h: h, interval: h.Created.PollInterval}
	if listen {
		sub, err := h.c.Listen(ctx, ListenFilter{TaskIDs: []string{h.ID}})
		switch {
		case err == nil && slices.Contains(sub.Acknowledged.TaskIDs, h.ID):
			defer sub.Close()
			w.notes = sub.C
		case err == nil: // not reported (a task already ended, or no notifications): poll
			_ = sub.Close()
		case ctx.Err() != nil:
			return nil, errNotTerminal(h.ID, "", context.Cause(ctx))
		}
	}
	var last TaskStatus
	var d *TaskDetail
	for {
		var err error
		if d == nil {
			d, err = h.Get(ctx)
		}
		if err == nil {
			last = d.Status
			if d.Status.Terminal() {
				return d, nil
			}
			if d.Status == TaskInputRequired {
				err = h.answerInputs(ctx, d.InputRequests)
			}
		}
		if err == nil {
			if d.PollInterval > 0 {
				w.interval = d.PollInterval
			}
			d, err = w.wait(ctx)
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, errNotTerminal(h.ID, last, context.Cause(ctx))
			}
			return nil, err
		}
	}
}

// waiter paces an Await: the poll timer and, for AwaitListen, the notifications.
type waiter struct {
	h        *TaskHandle
	interval time.Duration // the server's latest pollIntervalMs (0: none)
	notes    <-chan Notification
	timer    *time.Timer
}

// wait returns the task's state a notification brought, or nil when it is time to poll.
func (w *waiter) wait(ctx context.Context) (*TaskDetail, error) {
	wait := pollWait(w.interval)
	if w.notes != nil {
		wait *= listenPollFactor
	}
	if w.timer == nil {
		w.timer = time.NewTimer(wait)
	} else {
		w.timer.Reset(wait)
	}
	defer w.timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-w.timer.C:
			return nil, nil
		case n, ok := <-w.notes:
			if !ok { // the stream ended: poll as Await does
				w.notes = nil
				w.timer.Reset(pollWait(w.interval))
				continue
			}
			if d := w.h.noted(n); d != nil {
				return d, nil
			}
		}
	}
}

// pollWait is the wait before the next tasks/get for the server's interval (0: none given).
func pollWait(interval time.Duration) time.Duration {
	if interval <= 0 {
		return DefaultTaskPollInterval
	}
	return max(interval, MinTaskPollInterval)
}

// noted returns the task state a notifications/tasks for this task carries, nil for any other
// notification or a malformed one.
func (h *TaskHandle) noted(n Notification) *TaskDetail {
	if n.Method != "notifications/tasks" {
		return nil
	}
	d, err := parseTask(n.Params, "", true)
	if err != nil || d.ID != h.ID {
		return nil
	}
	return d
}

// answerInputs answers the keys of inputRequests not answered before, with the configured
// handlers, and sends them in one tasks/update. A key counts as answered once the server
// acknowledged its answer.
func (h *TaskHandle) answerInputs(ctx context.Context, inputRequests []byte) error {
	h.inputMu.Lock()
	defer h.inputMu.Unlock()
	out := []byte{'{'}
	var keys []string
	var ferr error
	decode.Members(inputRequests, func(rawKey, v []byte, _ decode.Type) bool {
		key := string(decode.Unquote(nil, append(append([]byte{'"'}, rawKey...), '"')))
		if h.answered[key] {
			return true // the server's snapshot still shows it: answered already
		}
		method := text(v, "method")
		r, err := h.c.answer(ctx, method, decode.Lookup(v, "params").Raw())
		if err != nil {
			ferr = &opError{fmt.Sprintf("task %s input request %q (%s)", h.ID, key, method), err}
			return false
		}
		if len(keys) > 0 {
			out = append(out, ',')
		}
		keys = append(keys, key)
		out = decode.AppendString(out, key, false)
		out = append(out, ':')
		out = append(out, r...)
		return true
	})
	if ferr != nil || len(keys) == 0 {
		return ferr
	}
	if err := h.update(ctx, append(out, '}')); err != nil {
		return err
	}
	for _, k := range keys {
		h.answered[k] = true
	}
	return nil
}
