package gateway

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// MaxListenTaskIDs bounds the taskIds of one subscriptions/listen, as the tasks extension
// of package tasks does: more is -32602.
const MaxListenTaskIDs = 100

var (
	errListenIDs  = fastmcp.NewError(fastmcp.CodeInvalidParams, "Invalid params: notifications.taskIds must be an array of task ids", nil)
	errListenMany = fastmcp.NewError(fastmcp.CodeInvalidParams, "Invalid params: notifications.taskIds lists more than 100 task ids", nil)
)

// listenBuffer is how many notifications/tasks wait for the caller's stream; newer ones are
// dropped (polling stays the baseline, and the next change carries the whole task again).
const listenBuffer = 64

// listenTasks serves a listen request's taskIds: each of the caller's ids opens to its
// backend's task, and every backend with some is listened to on a stream of the Gateway's
// own, for as long as the caller's stream lasts; the backend's notifications/tasks reach
// the caller under the Gateway's ids. The acknowledgement lists the ids the backends
// agreed to report (an unknown, foreign or forged id is left out, as a backend leaves out
// its own). An undeclared request asking for taskIds is -32021.
func (g *Gateway) listenTasks(ctx context.Context, r *fastmcp.Request, filter json.RawMessage) (*fastmcp.ListenTap, error) {
	v := decode.Lookup(filter, "taskIds")
	if !v.Present() {
		return nil, nil
	}
	if !r.DeclaresExtension(tasksExtension) {
		return nil, fastmcp.MissingExtension(tasksExtension)
	}
	var ids []string
	if v.Type() != decode.TypeArray || json.Unmarshal(v.Raw(), &ids) != nil {
		return nil, errListenIDs
	}
	if len(ids) > MaxListenTaskIDs {
		return nil, errListenMany
	}
	byBackend := map[*backend]map[string]string{} // backend -> its id -> the caller's
	for _, id := range ids {
		bn, own, ok := g.taskIDs.open(principal(ctx), id)
		b := g.backendNamed(bn)
		if !ok || b == nil {
			continue
		}
		if byBackend[b] == nil {
			byBackend[b] = map[string]string{}
		}
		byBackend[b][own] = id
	}
	l := &taskListen{events: make(chan fastmcp.ListenEvent, listenBuffer)}
	lctx, cancel := context.WithCancel(ctx)
	l.cancel = cancel
	var acked []string
	for b, names := range byBackend {
		c := b.current()
		if c == nil || !c.Modern() {
			continue
		}
		own := make([]string, 0, len(names))
		for id := range names {
			own = append(own, id)
		}
		sub, err := c.Listen(lctx, client.ListenFilter{TaskIDs: own})
		if err != nil {
			b.log.Warn("gateway: cannot listen to the backend's tasks", "err", err)
			continue
		}
		for _, id := range sub.Acknowledged.TaskIDs {
			if callers, ok := names[id]; ok {
				acked = append(acked, callers)
			}
		}
		l.wg.Add(1)
		go l.relay(lctx, sub, names)
	}
	ack := []byte(`"taskIds":[`)
	for i, id := range acked {
		if i > 0 {
			ack = append(ack, ',')
		}
		ack = decode.AppendString(ack, id, false)
	}
	return &fastmcp.ListenTap{Ack: append(ack, ']'), Events: l.events, Stop: l.stop}, nil
}

// taskListen is one caller's listen stream's share of the backends' task notifications.
type taskListen struct {
	events chan fastmcp.ListenEvent
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// relay passes one backend subscription's notifications/tasks on under the caller's ids
// (names: the backend's id -> the caller's) until it ends or the caller's stream does.
func (l *taskListen) relay(ctx context.Context, sub *client.Subscription, names map[string]string) {
	defer l.wg.Done()
	defer sub.Close()
	for n := range sub.C {
		if n.Method != "notifications/tasks" {
			continue
		}
		id, ok := names[decode.Lookup(n.Params, "taskId").String()]
		if !ok {
			continue
		}
		params := notificationParams(n.Params, id)
		select {
		case l.events <- fastmcp.ListenEvent{Method: n.Method, Params: params}:
		case <-ctx.Done():
			return
		default: // the caller is behind: it re-reads with tasks/get
		}
	}
}

// stop ends the backend subscriptions and waits for their relays.
func (l *taskListen) stop() {
	l.cancel()
	l.wg.Wait()
}

// notificationParams is a backend's notifications/tasks params under the Gateway's task id
// and without the backend's _meta: the Server writes the caller's subscriptionId there.
func notificationParams(raw []byte, id string) json.RawMessage {
	quoted := decode.AppendString(nil, id, false)
	return editObject(raw, func(key, v []byte) []byte {
		switch {
		case decode.KeyEquals(key, "_meta"):
			return nil
		case decode.KeyEquals(key, "taskId"):
			return quoted
		}
		return v
	})
}
