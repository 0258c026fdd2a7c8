package tasks

import (
	"context"
	"encoding/json"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// listen reads notifications.taskIds of subscriptions/listen: at most MaxListenTaskIDs ids,
// each at most MaxTaskIDBytes; the stream gets notifications/tasks for those of the caller's
// live tasks, which the acknowledgement lists (others are left out, as unknown).
func (x *Tasks) listen(ctx context.Context, r *fastmcp.Request, filter json.RawMessage) (*fastmcp.ListenTap, error) {
	v := decode.Lookup(filter, "taskIds")
	if !v.Present() {
		return nil, nil
	}
	if !r.DeclaresExtension(ExtensionID) {
		return nil, fastmcp.MissingExtension(ExtensionID)
	}
	if v.Type() != decode.TypeArray {
		return nil, errListenIDs
	}
	var ids []string
	n, ok := 0, true
	decode.Elements(v.Raw(), func(lit []byte, t decode.Type) bool {
		n++
		if n > MaxListenTaskIDs {
			return false
		}
		if t != decode.TypeString {
			ok = false
			return false
		}
		ids = append(ids, string(decode.Unquote(nil, lit)))
		return true
	})
	switch {
	case n > MaxListenTaskIDs:
		return nil, errListenMany
	case !ok:
		return nil, errListenIDs
	}
	var kept []string
	for _, id := range ids {
		if len(id) == 0 || len(id) > MaxTaskIDBytes || contains(kept, id) {
			continue
		}
		if _, err := x.load(ctx, id); err == nil {
			kept = append(kept, id)
		}
	}
	ack := append(make([]byte, 0, 16+len(kept)*40), `"taskIds":[`...)
	for i, id := range kept {
		if i > 0 {
			ack = append(ack, ',')
		}
		ack = decode.AppendString(ack, id, false)
	}
	ack = append(ack, ']')
	s := x.pub.subscribe(kept)
	return &fastmcp.ListenTap{Ack: ack, Events: s.ch, Stop: func() { x.pub.unsubscribe(s, kept) }}, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
