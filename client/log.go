package client

import (
	"encoding/json"
	"sync"
	"sync/atomic"
)

// LogMessage is one notifications/message the server sent (deprecated in 2026-07-28, where a
// server sends it only on the stream of a request that set a logLevel).
type LogMessage struct {
	Level  string          `json:"level"`
	Logger string          `json:"logger,omitempty"`
	Data   json.RawMessage `json:"data"`
}

// logQueue hands log messages to Config.OnLog on a goroutine of its own, so a slow hook never
// holds the goroutine reading the server (the stdio reader serves every call): at most
// Config.LogBuffer wait, newer ones are dropped and counted (Client.LogsDropped).
type logQueue struct {
	hook    func(LogMessage)
	c       chan LogMessage
	stop    chan struct{}
	done    chan struct{}
	dropped atomic.Int64
	report  func(recovered any) // a panic in the hook is logged, never the process's end
	once    sync.Once
}

func newLogQueue(hook func(LogMessage), size int, report func(any)) *logQueue {
	q := &logQueue{hook: hook, c: make(chan LogMessage, size), stop: make(chan struct{}), done: make(chan struct{}), report: report}
	go q.run()
	return q
}

func (q *logQueue) run() {
	defer close(q.done)
	for {
		select {
		case m := <-q.c:
			q.call(m)
		case <-q.stop:
			return
		}
	}
}

func (q *logQueue) call(m LogMessage) {
	defer func() {
		if r := recover(); r != nil {
			q.report(r)
		}
	}()
	q.hook(m)
}

// push queues the message in params (a notifications/message's params), or drops and counts
// it when LogBuffer are waiting. It never blocks. A nil queue (no hook) ignores it.
func (q *logQueue) push(params []byte) {
	if q == nil {
		return
	}
	var m LogMessage
	if json.Unmarshal(params, &m) != nil {
		return
	}
	select {
	case q.c <- m:
	default:
		q.dropped.Add(1)
	}
}

// close stops the queue once the hook running, if any, has returned; queued messages are
// dropped.
func (q *logQueue) close() {
	if q == nil {
		return
	}
	q.once.Do(func() { close(q.stop) })
	<-q.done
}

// LogsDropped counts the log messages lost because Config.OnLog fell LogBuffer behind.
func (c *Client) LogsDropped() int64 {
	if c.logs == nil {
		return 0
	}
	return c.logs.dropped.Load()
}
