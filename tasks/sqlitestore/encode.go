package sqlitestore

import (
	"database/sql"
	"encoding/json"
	"time"

	"github.com/fastmcp-go/fastmcp/tasks"
)

// stamp is t in Unix nanoseconds; the zero time is 0.
func stamp(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func unstamp(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// blob is a JSON value as a column: NULL when empty.
func blob(raw []byte) any {
	if len(raw) == 0 {
		return nil
	}
	return raw
}

// expiresAt is the column of CreatedAt+TTL: NULL for an unlimited TTL.
func expiresAt(created int64, ttl time.Duration) any {
	if ttl <= 0 {
		return nil
	}
	return created + int64(ttl)
}

func keysBlob(keys []string) (any, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	return json.Marshal(keys)
}

// fields are the named parameters of t's non-lease, non-identity columns.
func fields(t *tasks.Task) ([]any, error) {
	keys, err := keysBlob(t.Keys)
	if err != nil {
		return nil, err
	}
	return []any{
		sql.Named("status", string(t.Status)),
		sql.Named("status_message", t.StatusMessage),
		sql.Named("updated_at", stamp(t.UpdatedAt)),
		sql.Named("ttl", int64(t.TTL)),
		sql.Named("poll_interval", int64(t.PollInterval)),
		sql.Named("work_version", t.Work.Version),
		sql.Named("work_tool", t.Work.Tool),
		sql.Named("work_arguments", blob(t.Work.Arguments)),
		sql.Named("work_meta", blob(t.Work.Meta)),
		sql.Named("input_requests", blob(t.InputRequests)),
		sql.Named("responses", blob(t.Responses)),
		sql.Named("keys", keys),
		sql.Named("result", blob(t.Result)),
		sql.Named("error", blob(t.Error)),
		sql.Named("cancel_requested", t.CancelRequested),
		sql.Named("attempt", t.Attempt),
		sql.Named("not_before", stamp(t.NotBefore)),
	}, nil
}

// scanTask reads one row of columns.
func scanTask(row interface{ Scan(...any) error }) (*tasks.Task, error) {
	var (
		t                                        tasks.Task
		status                                   string
		created, updated, ttl, poll, notBefore   int64
		leaseUntil                               int64
		keys                                     []byte
		args, meta, inputs, responses, res, errs []byte
	)
	err := row.Scan(&t.ID, &t.Scope, &status, &t.StatusMessage, &created, &updated, &ttl, &poll,
		&t.Work.Version, &t.Work.Tool, &args, &meta, &inputs, &responses, &keys, &res, &errs,
		&t.CancelRequested, &t.Attempt, &notBefore, &t.LeaseOwner, &t.LeaseGen, &leaseUntil, &t.Revision)
	if err != nil {
		return nil, err
	}
	t.Status = tasks.Status(status)
	t.CreatedAt, t.UpdatedAt, t.NotBefore, t.LeaseUntil = unstamp(created), unstamp(updated), unstamp(notBefore), unstamp(leaseUntil)
	t.TTL, t.PollInterval = time.Duration(ttl), time.Duration(poll)
	t.Work.Arguments, t.Work.Meta = args, meta
	t.InputRequests, t.Responses, t.Result, t.Error = inputs, responses, res, errs
	if len(keys) > 0 {
		if err := json.Unmarshal(keys, &t.Keys); err != nil {
			return nil, err
		}
	}
	return &t, nil
}
