package tasks

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/fastmcp-go/fastmcp/decode"
)

// timeLayout writes createdAt and lastUpdatedAt: ISO 8601 in UTC, milliseconds.
const timeLayout = "2006-01-02T15:04:05.000Z"

// appendTask writes the members of a Task (without braces): taskId, status, statusMessage,
// createdAt, lastUpdatedAt, ttlMs, pollIntervalMs.
func appendTask(dst []byte, t *Task) []byte {
	dst = append(dst, `"taskId":`...)
	dst = decode.AppendString(dst, t.ID, false)
	dst = append(dst, `,"status":"`...)
	dst = append(dst, t.Status...)
	dst = append(dst, '"')
	if t.StatusMessage != "" {
		dst = append(dst, `,"statusMessage":`...)
		dst = decode.AppendString(dst, t.StatusMessage, false)
	}
	dst = append(dst, `,"createdAt":"`...)
	dst = t.CreatedAt.UTC().AppendFormat(dst, timeLayout)
	dst = append(dst, `","lastUpdatedAt":"`...)
	dst = t.UpdatedAt.UTC().AppendFormat(dst, timeLayout)
	dst = append(dst, `","ttlMs":`...)
	if t.TTL <= 0 {
		dst = append(dst, "null"...)
	} else {
		dst = strconv.AppendInt(dst, max(t.TTL.Milliseconds(), 1), 10)
	}
	if t.PollInterval > 0 {
		dst = append(dst, `,"pollIntervalMs":`...)
		dst = strconv.AppendInt(dst, max(t.PollInterval.Milliseconds(), 1), 10)
	}
	return dst
}

// appendDetail writes the members of a DetailedTask: the Task's and its status payload
// (inputRequests, result or error).
func appendDetail(dst []byte, t *Task) []byte {
	dst = appendTask(dst, t)
	switch t.Status {
	case StatusInputRequired:
		dst = append(dst, `,"inputRequests":`...)
		dst = appendObject(dst, t.InputRequests)
	case StatusCompleted:
		dst = append(dst, `,"result":`...)
		dst = appendObject(dst, t.Result)
	case StatusFailed:
		dst = append(dst, `,"error":`...)
		if len(t.Error) == 0 {
			dst = append(dst, `{"code":-32603,"message":"Internal error"}`...)
		} else {
			dst = append(dst, t.Error...)
		}
	}
	return dst
}

func appendObject(dst []byte, obj json.RawMessage) []byte {
	if len(obj) == 0 {
		return append(dst, "{}"...)
	}
	return append(dst, obj...)
}

// createResult is the CreateTaskResult of t: flat, resultType "task".
func createResult(t *Task) json.RawMessage {
	b := append(make([]byte, 0, 256), `{"resultType":"task",`...)
	return append(appendTask(b, t), '}')
}

// getResult is the GetTaskResult of t: resultType "complete" and the DetailedTask.
func getResult(t *Task) json.RawMessage {
	b := append(make([]byte, 0, 256+len(t.Result)+len(t.InputRequests)), `{"resultType":"complete",`...)
	return append(appendDetail(b, t), '}')
}

// notification is the params of notifications/tasks for t (the core adds the _meta).
func notification(t *Task) json.RawMessage {
	b := append(make([]byte, 0, 256+len(t.Result)+len(t.InputRequests)), '{')
	return append(appendDetail(b, t), '}')
}

// ackResult is the empty acknowledgement of tasks/update and tasks/cancel.
var ackResult = json.RawMessage(`{"resultType":"complete"}`)

// now is the time tasks are stamped with, in milliseconds (what the wire shows).
func now() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
