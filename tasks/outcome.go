package tasks

import (
	"encoding/json"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

func cancelled(t *Task) error {
	t.Status, t.StatusMessage, t.InputRequests = StatusCancelled, "Task cancelled", nil
	return nil
}

// failedWith sets the failed state with the JSON-RPC error e.
func failedWith(e *fastmcp.Error) func(*Task) error {
	return func(t *Task) error {
		if e == nil {
			e = fastmcp.ErrInternal
		}
		b := append([]byte(`{"code":`), []byte(itoa(int64(e.Code)))...)
		b = append(b, `,"message":`...)
		b = decode.AppendString(b, e.Message, false)
		if len(e.Data) > 0 {
			b = append(b, `,"data":`...)
			b = append(b, compact(e.Data)...)
		}
		t.Status, t.StatusMessage, t.Error = StatusFailed, e.Message, append(b, '}')
		t.InputRequests = nil
		return nil
	}
}

// inputRequired sets the input_required state with the handler's requests. Keys stay
// unique over the task's lifetime: asking again for an answered key fails the task.
func inputRequired(ir *fastmcp.InputRequired) func(*Task) error {
	return func(t *Task) error {
		answered := members(t.Responses)
		reqs := map[string]json.RawMessage{}
		for k, req := range ir.Requests {
			if _, done := answered[k]; done {
				return errReasked
			}
			b := append([]byte(`{"method":`), decode.AppendString(nil, req.Method, false)...)
			b = append(b, `,"params":`...)
			b = append(b, compact(req.Params)...)
			reqs[k] = append(b, '}')
			if !contains(t.Keys, k) {
				t.Keys = append(t.Keys, k)
			}
		}
		t.Status, t.StatusMessage, t.InputRequests = StatusInputRequired, "Input required", marshalMembers(reqs)
		return nil
	}
}
