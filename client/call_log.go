package client

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
)

// logLevelNames are the syslog levels of notifications/message, lowest first.
var logLevelNames = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// logLevelRank is a level's place in logLevelNames, -1 for a name that is none of them.
func logLevelRank(name string) int { return slices.Index(logLevelNames, name) }

// WithLog asks the server for this call's log messages at level or above ("" is
// Config.LogLevel) and calls fn for each that arrives on the call's own stream, in order,
// on the goroutine reading the response (as WithProgress), before the call returns and
// never after. Those messages go to fn instead of Config.OnLog (and of a legacy
// subscription's LogMessages); any other still goes there. A level that is not one of
// debug … emergency fails the call before anything is sent.
//
// A 2026-07-28 request carries level as its io.modelcontextprotocol/logLevel. An
// initialize-era server logs at the level of its session or connection (logging/setLevel,
// which would change it for every call, so WithLog does not send it): fn gets what comes
// on the call's stream at or above level, the rest is dropped.
//
// Over stdio nothing says which call a log message belongs to (it names no request): it
// goes to fn only while this call is the only one pending on the connection (a
// subscription aside, whose messages name it), and to Config.OnLog otherwise.
func WithLog(level string, fn func(LogMessage)) CallOption {
	return func(o *callOpts) { o.log, o.logLevel = fn, level }
}

// callLog delivers one exchange's log messages to its WithLog callback. mu orders the
// deliveries with end, after which none runs (a stdio reader may still hold a message of
// a call its context ended).
type callLog struct {
	fn    func(LogMessage)
	level string
	min   int // logLevelRank of level

	mu    sync.Mutex
	ended bool
}

// newCallLog is the callLog of an exchange made with o, nil when o asks for no log.
func (c *Client) newCallLog(o *callOpts) (*callLog, error) {
	if o == nil || o.log == nil {
		return nil, nil
	}
	level := o.logLevel
	if level == "" {
		level = c.cfg.LogLevel
	}
	rank := logLevelRank(level)
	if rank < 0 {
		return nil, fmt.Errorf("client: WithLog level %q is not a level (debug … emergency)", level)
	}
	return &callLog{fn: o.log, level: level, min: rank}, nil
}

// deliver hands params (a notifications/message's) to the callback, unless the call has
// ended or the message is below the level asked for; a level the client does not know is
// delivered.
func (l *callLog) deliver(c *Client, params []byte) {
	var m LogMessage
	if json.Unmarshal(params, &m) != nil {
		return
	}
	if r := logLevelRank(m.Level); r >= 0 && r < l.min {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.ended {
		c.callLogged(l.fn, m)
	}
}

// end stops the deliveries: none runs after end returns.
func (l *callLog) end() {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.ended = true
	l.mu.Unlock()
}
