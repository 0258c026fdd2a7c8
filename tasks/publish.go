package tasks

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// listenBuffer bounds the notifications queued for one listen stream; a stream further
// behind misses the excess (each notification is a task's full state, and polling stays the
// baseline).
const listenBuffer = 64

// publisher fans task states out to the listen streams of this process that asked for the
// task. The states come from the Server's bus (TaskChanged events), whichever replica wrote
// them: publish only puts them on the bus, and deliver, subscribed to it in Register, hands
// them to the streams.
type publisher struct {
	mu   sync.Mutex
	subs map[string]map[*subscriber]struct{} // by task id
}

type subscriber struct {
	ch chan fastmcp.ListenEvent
}

func (p *publisher) init() { p.subs = map[string]map[*subscriber]struct{}{} }

func (p *publisher) subscribe(ids []string) *subscriber {
	s := &subscriber{ch: make(chan fastmcp.ListenEvent, listenBuffer)}
	p.mu.Lock()
	for _, id := range ids {
		set := p.subs[id]
		if set == nil {
			set = map[*subscriber]struct{}{}
			p.subs[id] = set
		}
		set[s] = struct{}{}
	}
	p.mu.Unlock()
	return s
}

func (p *publisher) unsubscribe(s *subscriber, ids []string) {
	p.mu.Lock()
	for _, id := range ids {
		if set := p.subs[id]; set != nil {
			delete(set, s)
			if len(set) == 0 {
				delete(p.subs, id)
			}
		}
	}
	p.mu.Unlock()
}

// publish puts t's full state, as tasks/get shows it, on srv's bus for the listen streams of
// every replica, never blocking.
func publish(srv *fastmcp.Server, t *Task) {
	srv.Publish(fastmcp.Event{Kind: fastmcp.TaskChanged, Topic: t.ID, Data: notification(t)})
}

// deliver hands a TaskChanged event to the streams that asked for its task, never blocking.
func (p *publisher) deliver(e fastmcp.Event) {
	if e.Kind != fastmcp.TaskChanged {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	set := p.subs[e.Topic]
	if len(set) == 0 {
		return
	}
	ev := fastmcp.ListenEvent{Method: "notifications/tasks", Params: e.Data}
	for s := range set {
		select {
		case s.ch <- ev:
		default:
		}
	}
}

// compact returns raw on one line.
func compact(raw json.RawMessage) []byte {
	if !bytes.ContainsAny(raw, "\r\n\t ") {
		return raw
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}
