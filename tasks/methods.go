package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// maxCASAttempts bounds the compare-and-set retries of one tasks/update or tasks/cancel
// against concurrent writers; past it the request is -32603 "Task store unavailable".
const maxCASAttempts = 16

// taskID reads params.taskId: a string of at most MaxTaskIDBytes (longer ones name no task).
func taskID(r *fastmcp.Request) (string, error) {
	v := decode.Lookup(r.Params(), "taskId")
	if v.Type() != decode.TypeString {
		return "", errTaskIDType
	}
	id := v.String()
	if len(id) == 0 || len(id) > MaxTaskIDBytes {
		return "", errUnknownTask
	}
	return id, nil
}

// lookup returns the caller's live task named by params.taskId; another scope's task is
// unknown, exactly like a missing one.
func (x *Tasks) lookup(ctx context.Context, r *fastmcp.Request) (*Task, error) {
	id, err := taskID(r)
	if err != nil {
		return nil, err
	}
	return x.load(ctx, id)
}

func (x *Tasks) load(ctx context.Context, id string) (*Task, error) {
	t, err := x.store.Get(ctx, id)
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, errUnknownTask
	case err != nil:
		x.opts.Logger.Error("tasks: cannot read a task", "err", err)
		return nil, errStore
	case t.Scope != x.opts.Scope(ctx):
		return nil, errUnknownTask
	}
	return t, nil
}

// get serves tasks/get: the DetailedTask, resultType "complete".
func (x *Tasks) get(ctx context.Context, r *fastmcp.Request) (json.RawMessage, error) {
	t, err := x.lookup(ctx, r)
	if err != nil {
		return nil, err
	}
	return getResult(t), nil
}

// update serves tasks/update: answers to outstanding input requests are persisted (others
// ignored) before the ack; once none is outstanding the task is runnable again. Answers
// that would take the work past MaxWorkInputBytes are refused whole.
func (x *Tasks) update(ctx context.Context, r *fastmcp.Request) (json.RawMessage, error) {
	id, err := taskID(r)
	if err != nil {
		return nil, err
	}
	responses := decode.Lookup(r.Params(), "inputResponses")
	if responses.Type() != decode.TypeObject {
		return nil, errResponses
	}
	for range maxCASAttempts {
		t, err := x.load(ctx, id)
		if err != nil {
			return nil, err
		}
		if t.Status != StatusInputRequired {
			return ackResult, nil // nothing outstanding: every answer is a stray
		}
		if !accept(t, responses.Raw()) {
			return ackResult, nil
		}
		if workInputBytes(t) > x.opts.MaxWorkInputBytes {
			return nil, workTooLarge(x.opts.MaxWorkInputBytes) // nothing stored: the task waits as it was
		}
		t.UpdatedAt = now()
		err = x.store.Put(ctx, t, 0)
		if errors.Is(err, ErrConflict) {
			continue
		}
		if err != nil {
			x.opts.Logger.Error("tasks: cannot store answers", "err", err)
			return nil, errStore
		}
		publish(x.srv, t)
		if t.Status == StatusWorking {
			x.run.wake()
		}
		return ackResult, nil
	}
	return nil, errStore
}

// accept moves the answers to outstanding keys from t.InputRequests to t.Responses and
// reports whether it took any. With none left outstanding the task is working again.
func accept(t *Task, responses []byte) bool {
	outstanding := members(t.InputRequests)
	answered := members(t.Responses)
	took := false
	decode.Members(responses, func(key, val []byte, typ decode.Type) bool {
		k := string(decode.Unquote(nil, append(append([]byte{'"'}, key...), '"')))
		if _, ok := outstanding[k]; !ok || typ != decode.TypeObject {
			return true // a stray: never issued, already answered, or not an answer at all
		}
		delete(outstanding, k)
		answered[k] = clone(val)
		took = true
		return true
	})
	if !took {
		return false
	}
	t.Responses = marshalMembers(answered)
	if len(outstanding) == 0 {
		t.InputRequests = nil
		t.Status = StatusWorking
		t.StatusMessage = ""
	} else {
		t.InputRequests = marshalMembers(outstanding)
	}
	return true
}

// members splits a JSON object into its members by key; nil or invalid is empty.
func members(obj json.RawMessage) map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	if len(obj) > 0 {
		_ = json.Unmarshal(obj, &m)
	}
	return m
}

// marshalMembers writes members as one object, keys sorted (deterministic bytes).
func marshalMembers(m map[string]json.RawMessage) json.RawMessage {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b := []byte{'{'}
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = decode.AppendString(b, k, false)
		b = append(b, ':')
		b = append(b, compact(m[k])...)
	}
	return append(b, '}')
}

// cancel serves tasks/cancel: a live task becomes cancelled before the ack (a worker still
// running it is interrupted: at once in this process, at its next lease renewal in another);
// a terminal task is left as it is, and acknowledged alike.
func (x *Tasks) cancel(ctx context.Context, r *fastmcp.Request) (json.RawMessage, error) {
	id, err := taskID(r)
	if err != nil {
		return nil, err
	}
	for range maxCASAttempts {
		t, err := x.load(ctx, id)
		if err != nil {
			return nil, err
		}
		if t.Status.Terminal() {
			return ackResult, nil
		}
		t.CancelRequested = true
		t.Status, t.StatusMessage = StatusCancelled, "Task cancelled"
		t.InputRequests = nil
		t.UpdatedAt = now()
		err = x.store.Put(ctx, t, 0)
		if errors.Is(err, ErrConflict) {
			continue
		}
		if err != nil {
			x.opts.Logger.Error("tasks: cannot cancel a task", "err", err)
			return nil, errStore
		}
		x.run.interrupt(id)
		publish(x.srv, t)
		return ackResult, nil
	}
	return nil, errStore
}
