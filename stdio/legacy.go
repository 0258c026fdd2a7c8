package stdio

import (
	"context"
	"errors"
	"runtime/debug"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fastmcp/transport"
)

// legacyState is what a connection knows of its initialize-era client: the state the last
// successful initialize negotiated and logging/setLevel changed, and the goroutine that
// writes the notifications the client gets unasked. It is guarded by the conn's mutex.
type legacyState struct {
	client   fastmcp.ConnState  // Dialect is 0 until an initialize succeeds; LogLevel starts at the server's LegacyLogLevel
	version  []byte             // client.Dialect's version, as the HTTP header would carry it
	evCancel context.CancelFunc // ends the events goroutine of client.Events
}

// classifyLocked chooses the dialect that serves j's request, as HTTP does from the
// MCP-Protocol-Version header: stdio carries the version the connection negotiated. The
// request is served with the connection's state as it is now; an initialize with a fresh
// subscription set of its own, which the connection adopts if it succeeds. c.mu must be
// held.
func (c *conn) classifyLocked(j *job) *fastmcp.Error {
	st := &c.legacy
	d, refusal := c.h.Classify(&j.msg, st.version, st.client.Dialect != 0)
	if refusal != nil {
		return refusal
	}
	j.client, j.rules = st.client, transport.RulesOf(d)
	j.client.Dialect = d
	method := j.msg.Method().Text()
	j.settles = j.rules.ChangesState(method)
	if j.rules.Handshake(method) {
		j.pinned = true
		j.client.Events = fastmcp.NewLegacyEvents()
	}
	return nil
}

// settledLocked records that j, if it changes the connection's state, has its outcome: its
// state is adopted or never will be, and the reader may classify the next line. c.mu must
// be held.
func (c *conn) settledLocked(j *job) {
	if j.settles {
		c.settling = false
		c.space.Broadcast()
	}
}

// answerRun answers a request with the reply its run produced. The connection adopts the
// client state a successful initialize or logging/setLevel reports in the same step that
// queues the response; the reader classifies the next line only after that (see
// settledLocked), so the client's next request sees it even when it did not wait for the
// response.
func (c *conn) answerRun(j *job, r fastmcp.Reply) {
	j.keep(r.Body)
	if r.Rerun {
		// Request never answers ErrCannotWait: requests run on workers, where they may wait.
		c.set.log.Error("stdio: a request asked to be served again", "method", string(j.msg.Method().Text()))
		c.lastWord(j, fastmcp.ErrInternal)
		return
	}
	if len(j.out) == 0 {
		return
	}
	line := wire(&j.esc, j.out)
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.State != nil && j.state == statePending && c.stopErr == nil && !c.closing {
		c.adoptLocked(j, r.State)
	}
	_, _ = c.putLocked(line, j, true)
}

// adoptLocked makes next the connection's client state: all of it after initialize, which
// may switch the dialect (a repeated initialize starts afresh, with the subscriptions of its
// own and the level it reports); only the level after logging/setLevel, so that a setLevel
// racing a later initialize cannot bring back the dialect that initialize replaced. c.mu
// must be held.
func (c *conn) adoptLocked(j *job, next *fastmcp.ConnState) {
	st := &c.legacy
	if !j.pinned {
		st.client.LogLevel = next.LogLevel
		return
	}
	if st.evCancel != nil {
		st.evCancel()
		st.evCancel = nil
	}
	st.client = *next
	st.client.Events = j.client.Events
	st.version = append(st.version[:0], next.Dialect.Version()...)
	if st.client.Events != nil && c.reading {
		ctx, cancel := context.WithCancel(c.ctx)
		st.evCancel = cancel
		c.events.Add(1)
		// Subscribed before the initialize result is written (the caller writes it next, under
		// c.mu): a change published once the client has read it reaches it.
		go c.serveEvents(ctx, c.h.SubscribeEvents(st.client.Events))
	}
}

// serveEvents writes the list_changed and resources/updated notifications of one
// initialize-era state until a later initialize replaces it or the connection ends.
func (c *conn) serveEvents(ctx context.Context, serve func(context.Context, fastmcp.Sink) error) {
	defer c.events.Done()
	defer func() {
		if v := recover(); v != nil {
			c.set.log.Error("stdio: initialize-era notifications panicked", "panic", v, "stack", string(debug.Stack()))
		}
	}()
	err := serve(ctx, eventSink{c})
	if err != nil && ctx.Err() == nil && !errors.Is(err, errOutputClosed) {
		c.set.log.Warn("stdio: initialize-era notifications stopped", "err", err)
	}
}

// stopEvents ends the events goroutine, when the input ends or serving stops.
func (c *conn) stopEvents() {
	c.mu.Lock()
	if c.legacy.evCancel != nil {
		c.legacy.evCancel()
		c.legacy.evCancel = nil
	}
	c.mu.Unlock()
}

// eventSink writes the connection's unsolicited notifications, which belong to no request.
type eventSink struct{ c *conn }

func (s eventSink) Notify(ctx context.Context, msg []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.c.send(ctx, msg, nil)
}

// Request writes a server-to-client request of the job's request (elicitation, sampling,
// roots) as one line, before the request's response, and returns once it is written. Once
// the line is queued it waits for the write even if ctx ends meanwhile (the write timeout
// bounds the wait), so nil always means the client got the request, and an error that it
// was not sent (or the connection failed): the caller knows which requests to withdraw. It
// never answers fastmcp.ErrCannotWait: requests run on executor workers, where they may
// wait for the client.
func (j *job) Request(ctx context.Context, msg []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	written, err := j.c.queue(msg, j)
	if err != nil || written == nil {
		return err
	}
	select {
	case <-written:
		return nil
	case <-j.c.stopped:
		return errOutputClosed
	}
}

// answer hands a response line from the client to the server-to-client request it answers.
// The reader keeps reading while requests wait for answers, and answers are delivered here,
// on the reader, never behind queued requests. An answer nobody waits for (late, repeated,
// or never asked) is ignored.
func (c *conn) answer(m *decode.Message) {
	if !c.h.Answer(m, "") {
		c.set.log.Debug("stdio: ignored a response that answers no outstanding request", "id", string(m.ID().Raw()))
	}
}

// isCancelNotice reports whether msg is a notifications/cancelled.
func isCancelNotice(msg []byte) bool {
	return string(decode.Lookup(msg, "method").Text()) == methodCancelled
}
