package streamable

import (
	"sync"
	"time"
)

// topicMemo remembers a small value per session topic until an expiry, for at most max
// topics: past it, the oldest entered is forgotten first. It is how a replica knows, with no
// session table, which sessions were ended (DELETE) and the last log level set for a
// session, both heard over the bus.
type topicMemo struct {
	mu    sync.Mutex
	max   int
	m     map[string]memoEntry
	order []string // entry order, a ring once it holds max topics
	head  int      // the oldest, once order is full
}

type memoEntry struct {
	v     int8
	until time.Time
}

func newTopicMemo(max int) *topicMemo { return &topicMemo{max: max, m: map[string]memoEntry{}} }

// put remembers v for topic until until.
func (t *topicMemo) put(topic string, v int8, until time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.m[topic]; ok {
		t.m[topic] = memoEntry{v, until}
		return
	}
	if len(t.order) < t.max {
		t.order = append(t.order, topic)
	} else {
		delete(t.m, t.order[t.head])
		t.order[t.head] = topic
		t.head = (t.head + 1) % t.max
	}
	t.m[topic] = memoEntry{v, until}
}

// get returns topic's value, if remembered and not expired at now.
func (t *topicMemo) get(topic string, now time.Time) (int8, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.m[topic]
	if !ok || !now.Before(e.until) {
		return 0, false
	}
	return e.v, true
}

// len returns the number of topics remembered.
func (t *topicMemo) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.m)
}
