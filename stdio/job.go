package stdio

import (
	"context"
	"encoding/binary"
	"errors"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fastmcp/transport"
	"github.com/fastmcp-go/fastmcp/pool"
)

const methodCancelled = "notifications/cancelled"

// The states of a job, guarded by its conn's mutex.
const (
	statePending   uint8 = iota // admitted; its last word is still to come
	stateAnswered               // its response (or a silent end) has been queued
	stateCancelled              // cancelled by the client, or its stream closed by the transport
)

// maxKeptLineBytes is the largest line or reply buffer a recycled job keeps.
const maxKeptLineBytes = 64 << 10

// job is one line's work: it owns the line, the decoded message (which borrows the line),
// the reply buffers and, once admitted, the request's place in the in-flight table. It is
// the pool.Task of a request and the fastmcp.Sink of its notifications.
//
// An admitted request job belongs to the executor, which may deliver the outcome (a
// timeout, a cancellation) while Run is still going, or never start Run; it is recycled in
// Release, which the executor calls once both Run and Done are over (see pool.Releaser). A
// stream's job belongs to its goroutine, which recycles it when the stream ends.
type job struct {
	c    *conn
	msg  decode.Message
	line []byte // the input line; msg borrows it
	out  []byte // the reply Handle appends
	esc  []byte // the reply made 7-bit clean, when it was not
	kbuf []byte // a string id's unescaped text (id.str is a view of it)

	id      requestID // its key in c.inflight
	pkey    pool.Key  // the executor's key: unique per job
	state   uint8     // guarded by c.mu
	listen  bool
	opened  bool               // a stream's acknowledgement was written: line and msg are let go
	lid     []byte             // an opened stream's id literal, for a last word after a panic
	lctx    context.Context    // a stream's context
	lcancel context.CancelFunc // cancels lctx
	slot    func()             // releases a stream's executor slot

	// The client's state as the request is served with it: the dialect Classify chose at
	// admission, and the connection's initialize-era state as it was then (see legacy.go);
	// rules are the dialect's.
	client  fastmcp.ConnState
	rules   *transport.Rules
	pinned  bool // an initialize-era initialize: notifications/cancelled does not apply
	settles bool // it changes the connection's state: the reader reads on once its outcome is decided
}

var jobs = sync.Pool{New: func() any { return new(job) }}

// noState is the state an invalid message is answered with: the core reads none of it.
var noState fastmcp.ConnState

// jobSeq numbers jobs for their executor keys, so that a reused request id never meets the
// key of a job that is still winding down.
var jobSeq atomic.Uint64

func (c *conn) getJob() *job {
	j := jobs.Get().(*job)
	j.c = c
	return j
}

// testHookRecycle, if set, is called with each job putJob is about to recycle.
var testHookRecycle atomic.Pointer[func(*job)]

func (c *conn) putJob(j *job) {
	if h := testHookRecycle.Load(); h != nil {
		(*h)(j)
	}
	j.msg.Reset()
	if cap(j.line) > maxKeptLineBytes {
		j.line = nil
	}
	if cap(j.out) > maxKeptLineBytes {
		j.out = nil
	}
	if cap(j.esc) > maxKeptLineBytes {
		j.esc = nil
	}
	j.line, j.out, j.esc, j.lid = j.line[:0], j.out[:0], j.esc[:0], j.lid[:0]
	j.c, j.id, j.pkey, j.listen, j.opened, j.lctx, j.lcancel, j.slot = nil, requestID{}, pool.Key{}, false, false, nil, nil, nil
	j.rules, j.client, j.pinned, j.settles = nil, fastmcp.ConnState{}, false, false
	jobs.Put(j)
}

// keep makes body, a reply appended to j.out[:0], j's reply; no reply (nil) leaves j.out
// empty but keeps its storage.
func (j *job) keep(body []byte) {
	if body == nil {
		body = j.out[:0]
	}
	j.out = body
}

// serveLine decodes the line j holds and acts on it: a request is admitted, a cancellation
// is applied, anything else is answered or ignored here.
func (c *conn) serveLine(j *job) {
	err := c.dec.Decode(&j.msg, j.line)
	switch {
	case err != nil:
		j.keep(c.h.DecodeError(j.out[:0], &j.msg, err).Body)
		c.putReply(j, nil, false)
	case j.msg.Kind() == decode.KindRequest:
		c.admit(j)
		return
	case j.msg.Kind() == decode.KindNotification:
		// notifications/initialized and the rest are accepted silently.
		if string(j.msg.Method().Text()) == methodCancelled {
			c.cancelRequest(&j.msg, j)
		}
	case j.msg.Kind() == decode.KindResponse:
		c.answer(&j.msg)
	default: // an invalid message gets the core's answer
		j.keep(c.h.Serve(c.ctx, &noState, &j.msg, nil, j.out[:0]).Body)
		c.putReply(j, nil, false)
	}
	c.putJob(j)
}

// putReply queues j.out, made ready for the wire, as the last word of owner (if not nil).
func (c *conn) putReply(j *job, owner *job, final bool) {
	var line []byte
	if len(j.out) > 0 {
		line = wire(&j.esc, j.out)
	}
	_, _ = c.put(line, owner, final)
}

// admit starts a request on the executor, or a subscriptions/listen stream on its own
// goroutine, unless its id is in flight or capacity is exhausted.
func (c *conn) admit(j *job) {
	// The id is within bounds (Decode checked it). A string id's text lives in kbuf, which
	// nothing changes until the job is recycled, after it has left the table.
	j.id, _ = parseID(j.msg.ID(), &j.kbuf)
	c.mu.Lock()
	var refusal *fastmcp.Error
	switch {
	case !c.reading || c.stopErr != nil:
		c.mu.Unlock()
		c.dropUnadmitted(j)
		return
	case c.inflight.get(j.id) != nil:
		refusal = errDuplicateID
	default:
		refusal = c.classifyLocked(j)
		j.listen = refusal == nil && j.rules.Streams(j.msg.Method().Text())
		if refusal == nil && j.listen && c.openListen >= c.set.maxSubscriptions {
			refusal = fastmcp.ErrSubscriptionCapacity
		}
	}
	if refusal != nil {
		c.mu.Unlock()
		c.refuse(j, nil, refusal)
		c.dropUnadmitted(j)
		return
	}
	// Not the id: the executor keeps its key until Run has returned, when j may be recycled.
	j.pkey = pool.Key{Owner: jobSeq.Add(1)}
	j.state = statePending
	c.inflight.put(j.id, j)
	c.active++
	if j.listen {
		c.openListen++
	}
	if j.settles {
		c.settling, c.mustSettle = true, true
	}
	c.mu.Unlock()

	if j.listen {
		j.lctx, j.lcancel = context.WithCancel(c.ctx)
		c.startListen(j)
		return
	}
	key := j.pkey
	err := c.ex.SubmitTimeout(c.jobCtx, key, c.set.requestTimeout, j)
	if err == nil {
		// j belongs to the executor now, until Release. If serving stopped meanwhile, stop
		// may have missed the job, which was not yet submitted.
		if c.halted.Load() && c.stopping() {
			c.ex.Cancel(key, errServeEnded)
		}
		return
	}
	switch {
	case errors.Is(err, pool.ErrOverloaded), errors.Is(err, pool.ErrClosed):
		c.refuse(j, j, fastmcp.SubmitError(err))
		if errors.Is(err, pool.ErrClosed) {
			c.executorDown(err)
		}
	default: // serving stops (the connection's context ended): nothing more is written
		_, _ = c.put(nil, j, true)
	}
	c.mu.Lock()
	c.settledLocked(j)
	c.endedLocked()
	c.mu.Unlock()
	c.putJob(j)
}

// dropUnadmitted recycles a request job that was never admitted.
func (c *conn) dropUnadmitted(j *job) {
	if j.lcancel != nil {
		j.lcancel()
	}
	c.putJob(j)
}

// refuse queues an error response to j's request; owner, when set, is the admitted job
// whose last word it is.
func (c *conn) refuse(j, owner *job, e *fastmcp.Error) {
	id := j.msg.ID().Raw()
	if j.opened {
		id = j.lid
	}
	j.out = decode.AppendError(j.out[:0], id, int64(e.Code), e.Message, e.Data, true)
	c.putReply(j, owner, owner != nil)
}

// startListen runs an admitted subscriptions/listen stream on its own goroutine, holding
// one of the executor's slots but none of its workers.
func (c *conn) startListen(j *job) {
	release, err := c.ex.Slots().Acquire(c.ctx)
	if err != nil {
		refusal := fastmcp.ErrSubscriptionCapacity
		if errors.Is(err, pool.ErrClosed) {
			refusal = fastmcp.ErrExecutorUnavailable
		}
		c.refuse(j, j, refusal)
		j.lcancel()
		c.mu.Lock()
		c.endedLocked()
		c.mu.Unlock()
		c.putJob(j)
		return
	}
	j.slot = release
	c.listens.Add(1)
	go c.runListen(j)
}

// runListen serves one stream: Handle sends the acknowledgement and the events through j
// and returns when the stream ends, with the completion response when the server ended it
// gracefully, or nothing when it was cancelled.
func (c *conn) runListen(j *job) {
	defer c.listens.Done()
	defer func() {
		if v := recover(); v != nil {
			c.set.log.Error("stdio: subscriptions/listen panicked", "panic", v, "stack", string(debug.Stack()))
			c.refuse(j, j, fastmcp.ErrInternal)
		}
		j.slot()
		j.lcancel()
		c.mu.Lock()
		c.endedLocked()
		c.mu.Unlock()
		c.putJob(j)
	}()
	j.keep(c.h.Serve(j.lctx, &j.client, &j.msg, j, j.out[:0]).Body)
	c.putReply(j, j, true)
}

// cancelRequest applies notifications/cancelled (m, decoded into scratch's line): the
// request or stream it names ends at once, with no response, and its id is free. A
// notification whose reason is not a string is ignored as a whole, as is one naming no
// request in flight, or an initialize-era initialize (which the client must not cancel).
func (c *conn) cancelRequest(m *decode.Message, scratch *job) {
	params := m.Params().Raw()
	if reason := decode.Lookup(params, "reason"); reason.Present() && reason.Type() != decode.TypeString {
		return
	}
	id, ok := parseID(decode.Lookup(params, "requestId"), &scratch.kbuf)
	if !ok {
		return
	}
	c.mu.Lock()
	j := c.inflight.get(id)
	if j == nil || j.state != statePending || j.pinned {
		c.mu.Unlock()
		return
	}
	j.state = stateCancelled
	c.forgetLocked(j)
	// Copied under the lock: j may be recycled as soon as it is released.
	listen, key, lcancel, slot := j.listen, j.pkey, j.lcancel, j.slot
	c.mu.Unlock()
	if listen {
		lcancel()
		if slot != nil {
			slot()
		}
		return
	}
	c.ex.Cancel(key, errCancelledByClient)
}

// Run serves the request on a worker. A reply is the request's last word unless the
// outcome was decided first; no reply (the context was cancelled: a timeout, the client, or
// the connection) leaves the last word to Done, which the executor decided before it
// cancelled the context.
func (j *job) Run(ctx context.Context) error {
	j.c.answerRun(j, j.c.h.Serve(ctx, &j.client, &j.msg, j, j.out[:0]))
	return nil
}

// Done receives the request's outcome: a timeout or a failure is answered here, a
// completed request has answered in Run, and a cancelled one is not answered.
func (j *job) Done(r pool.Result) {
	c := j.c
	// A failure is Run's panic (the executor logged it) before it answered.
	if e := fastmcp.OutcomeError(r); e != nil && r.Outcome != pool.Completed {
		c.lastWord(j, e)
		if errors.Is(r.Err, pool.ErrClosed) {
			c.executorDown(r.Err)
		}
	}
	_, _ = c.put(nil, j, true) // ends the request silently if nothing above or in Run did
	c.mu.Lock()
	c.settledLocked(j) // Run has adopted j's state by now, or never will (j is answered)
	c.endedLocked()
	c.mu.Unlock()
}

// Release recycles the request's job: the executor calls it once Run has returned (or will
// never start) and Done has returned, so nothing uses j any more. Done is always called,
// since the submitter's context (c.jobCtx) never ends, and it gives the request its last
// word, so j has left the in-flight table by then.
func (j *job) Release() { j.c.putJob(j) }

// lastWord answers j with a -32603 error, unless it has had its last word. Run may still be
// using j's buffers, so the line gets its own.
func (c *conn) lastWord(j *job, e *fastmcp.Error) {
	_, _ = c.put(decode.AppendError(nil, j.msg.ID().Raw(), int64(e.Code), e.Message, nil, true), j, true)
}

// Notify writes one notification of the request or stream (progress, a log message, a
// subscription event) and returns once it is written. It fails once the request has had its
// last word, when ctx ends first, or when output has stopped.
func (j *job) Notify(ctx context.Context, msg []byte) error {
	if err := ctx.Err(); err != nil {
		if j.rules.ClientRequests && isCancelNotice(msg) {
			return j.c.send(context.WithoutCancel(ctx), msg, j)
		}
		return err
	}
	if j.listen && !j.opened {
		// The stream's acknowledgement: the core reads the request no more (see
		// transport.Endpoint.Serve), so the stream lets go of its line, which may be megabytes.
		// The id's text for the in-flight table lives in kbuf.
		j.opened = true
		j.lid = append(j.lid[:0], j.msg.ID().Raw()...)
		j.msg.Reset()
		j.line = nil
	}
	return j.c.send(ctx, msg, j)
}

// send writes msg, a message of owner (nil: of the connection), as one line and waits until
// it is written, the connection fails, or ctx ends.
func (c *conn) send(ctx context.Context, msg []byte, owner *job) error {
	written, err := c.queue(msg, owner)
	if err != nil || written == nil {
		return err
	}
	select {
	case <-written:
		return nil
	case <-c.stopped:
		return errOutputClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// queue puts msg, a message of owner (nil: of the connection), made ready for the wire, in
// line for the writer, and returns the channel closed once it is written (nil: not to be
// waited for). A legacy request's withdrawal of its own server-to-client request
// (notifications/cancelled) is written even after the request's last word, since the
// client still holds that request open; it is not waited for then.
func (c *conn) queue(msg []byte, owner *job) (<-chan struct{}, error) {
	line := msg
	if !clean(msg) {
		line = wire(new([]byte), msg)
	}
	written, err := c.put(line, owner, false)
	if err == errRequestDone && owner.rules.ClientRequests && isCancelNotice(msg) {
		_, err = c.put(line, nil, false)
		return nil, err
	}
	return written, err
}

var _ fastmcp.Requester = (*job)(nil)
var _ pool.Task = (*job)(nil)
var _ pool.Releaser = (*job)(nil)

// clean reports whether the JSON text b can be written as it is: 7-bit clean, with no raw
// line break (which in valid JSON can only be whitespace between tokens). Every reply goes
// through it, so it checks eight bytes at a time.
func clean(b []byte) bool {
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
	)
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		if x&high != 0 {
			return false
		}
		// With no high bit set, (v-ones)&^v has a high bit exactly where v has a zero byte.
		lf, cr := x^(ones*'\n'), x^(ones*'\r')
		if ((lf-ones)&^lf|(cr-ones)&^cr)&high != 0 {
			return false
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c >= 0x80 || c == '\n' || c == '\r' {
			return false
		}
	}
	return true
}

// wire returns the JSON text b ready for one output line: every non-ASCII character
// escaped as \uXXXX and every raw line break turned into a space. It returns b itself when
// nothing needs changing, or a copy in *scratch.
func wire(scratch *[]byte, b []byte) []byte {
	if clean(b) {
		return b
	}
	out := decode.AppendASCII((*scratch)[:0], b)
	for i, ch := range out {
		if ch == '\n' || ch == '\r' {
			out[i] = ' '
		}
	}
	*scratch = out
	return out
}
