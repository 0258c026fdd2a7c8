package streamable

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fastmcp/transport"
	"github.com/fastmcp-go/fastmcp/pool"
)

// job is one admitted request: it owns a copy of the body and the decoded message, so the
// work may outlive the HTTP handler (a request timeout answers 504 while a handler that
// ignores its context still runs). Up to two parties hold it, each with one reference: the
// HTTP side, from acquireJob until it calls release, and the executor, from submit until
// it calls Release (once Run and Done are both over, see pool.Releaser); the last to let go
// returns it to the pool. The reply is read only after a Completed outcome, which the
// executor delivers after Run returned.
type job struct {
	ep       *endpoint
	body     []byte
	msg      decode.Message
	identity *fastmcp.Identity
	received time.Time // when the native listener read the request; see ReceivedAt

	reply  []byte
	rerr   *fastmcp.Error
	result pool.Result
	// The outcome's hand-off (see awaitDone): finished is set once the outcome is recorded;
	// done receives too when the HTTP side parked on it first. An inline request, whose
	// outcome is recorded before SubmitInline returns, thus costs no channel operation.
	finished, parked atomic.Bool
	done             chan struct{}

	// Notifications from the handler (progress, logs) and server-to-client requests cross to
	// the HTTP side one at a time: the handler sends on notes and waits on ack, which the HTTP
	// side sends after writing.
	notes chan []byte
	ack   chan error
	// left holds a token once the HTTP side has answered and stops reading notes, so that a
	// handler still running (past its deadline, or withdrawing its requests to the client)
	// fails at once instead of waiting for a reader.
	left chan struct{}

	// state is what the core is told of the client over stateless HTTP (admission
	// classifies the request: state.Dialect serves it), and rules are that dialect's.
	state fastmcp.ConnState
	rules *transport.Rules
	// key is the executor key the job runs under, by which a notifications/cancelled cancels it.
	key pool.Key
	// inlining is set by the native listener around SubmitInline; a run that starts while it is
	// set runs inline (on the connection goroutine, which cannot service notes meanwhile):
	// its log messages are held in the job and its server-to-client requests are refused with
	// fastmcp.ErrCannotWait, which makes the core ask for a rerun on a worker (rerun).
	inlining, inline atomic.Bool
	held             heldNotes
	stream           eventBuffer // the event stream of held notifications, sent whole
	rerun            bool
	// serving is set while the HTTP side serves the request (Stats.InFlight counts it).
	serving bool
	// Each host's side of the exchange loop, here so that handing it over allocates
	// nothing (see exchangeHost).
	native nativeHost
	mount  mountHost
	std    streamerHost
	probe  probeTimer // the mount's and Execute's probes of their peer; kept for the job's life
	// The registration in the endpoint's registry of requests notifications/cancelled may
	// name, and whether one withdrew the request: it then gets no response at all.
	running   transport.Running
	withdrawn atomic.Bool

	// Initialize-era sessions (Config.LegacySessions): the request's session, whether it is
	// the initialize that opens one, and then the id its reply carries.
	session    sessionRef
	newSession bool
	sessionID  []byte

	refs atomic.Int32
}

var jobPool = sync.Pool{New: func() any {
	return &job{done: make(chan struct{}, 1), notes: make(chan []byte), ack: make(chan error, 1), left: make(chan struct{}, 1)}
}}

func acquireJob(ep *endpoint) *job {
	j := jobPool.Get().(*job)
	j.ep = ep
	j.refs.Store(1)
	return j
}

// settled takes the request out of the registry of cancellable requests once the HTTP side
// knows its outcome, before the client can see the answer and reuse the id: a cancel then
// reaches no request that has been answered, nor one whose connection has moved on.
func (j *job) settled() { j.ep.cancels.Remove(&j.running) }

// release drops the HTTP side's reference, after it has answered (settled, if that was not
// done yet).
func (j *job) release() {
	j.settled()
	if j.serving {
		j.serving = false
		j.ep.stats.inFlight.Add(-1)
	}
	// A handler still running learns that nothing reads its notes any more. Once the executor
	// has let go (Run and Done are over: the usual inline case), no handler can, so the token
	// is not sent for drop to drain.
	if j.refs.Load() > 1 {
		select {
		case j.left <- struct{}{}:
		default:
		}
	}
	j.drop()
}

// drop drops one holder's reference (the HTTP side's through release, or the executor's
// through Release); the last returns the job to the pool.
func (j *job) drop() {
	if j.refs.Add(-1) != 0 {
		return
	}
	if cap(j.body) > 64<<10 {
		j.body = nil // do not pin large buffers in the pool
	}
	if cap(j.reply) > 64<<10 {
		j.reply = nil
	}
	if cap(j.stream) > 64<<10 {
		j.stream = nil
	}
	j.native, j.mount, j.std = nativeHost{}, mountHost{}, streamerHost{}
	j.body, j.reply = j.body[:0], j.reply[:0]
	j.msg.Reset()
	j.identity, j.rerr, j.result, j.received = nil, nil, pool.Result{}, time.Time{}
	j.state, j.rules, j.key, j.rerun = fastmcp.ConnState{}, nil, pool.Key{}, false
	j.session, j.newSession, j.sessionID = sessionRef{}, false, nil
	j.inlining.Store(false)
	j.inline.Store(false)
	j.withdrawn.Store(false)
	j.held.reset()
	j.finished.Store(false)
	j.parked.Store(false)
	select { // drain a completion nobody waited for
	case <-j.done:
	default:
	}
	select {
	case <-j.ack:
	default:
	}
	select {
	case <-j.left:
	default:
	}
	jobPool.Put(j)
}

// begin counts the request as served (Stats.InFlight) until the HTTP side lets go of it.
func (j *job) begin() {
	j.serving = true
	j.ep.stats.inFlight.Add(1)
}

// submit hands the job to the executor, taking the executor's reference.
func (j *job) submit(ctx context.Context, key pool.Key) error {
	j.refs.Add(1)
	timeout := j.ep.cfg.RequestTimeout
	if timeout == NoTimeout {
		timeout = pool.NoTimeout
	}
	if err := j.ep.exec.SubmitTimeout(ctx, key, timeout, j); err != nil {
		j.refs.Add(-1)
		return err
	}
	return nil
}

// submitInline is submit, running the job on the caller's goroutine when a worker is free;
// inline reports whether it did (the outcome is then already delivered).
func (j *job) submitInline(ctx context.Context, key pool.Key) (inline bool, err error) {
	j.refs.Add(1)
	timeout := j.ep.cfg.RequestTimeout
	if timeout == NoTimeout {
		timeout = pool.NoTimeout
	}
	inline, err = j.ep.exec.SubmitInline(ctx, key, timeout, j)
	if err != nil {
		j.refs.Add(-1)
	}
	return inline, err
}

// mayStream reports whether the request can produce notifications that must reach the
// client as they happen (progress, a modern request's log messages), which need the HTTP side
// free to switch to an event stream. A legacy request's log messages (its level is the
// server's LegacyLogLevel, so any handler may log) are held while it runs inline instead.
func (j *job) mayStream() bool {
	return j.msg.ProgressToken().Present() || j.msg.LogLevel().Present()
}

// completed reports whether the job ran to its end; only then is its reply readable.
func (j *job) completed() bool { return j.result.Outcome == pool.Completed }

// Run serves the request, on an executor worker or inline.
func (j *job) Run(ctx context.Context) error {
	if j.identity != nil {
		ctx = fastmcp.WithIdentity(ctx, j.identity)
	}
	j.inline.Store(j.inlining.Load())
	r := j.ep.core.Serve(ctx, &j.state, &j.msg, j, j.reply[:0])
	if (j.newSession || j.session.topic != "") && !r.Rerun {
		j.ep.afterServe(j, &r)
	}
	j.reply, j.rerr, j.rerun = r.Body, r.Err, r.Rerun
	return nil
}

// Done records the outcome and wakes the HTTP side if it parked.
func (j *job) Done(r pool.Result) {
	j.result = r
	j.finished.Store(true)
	if j.parked.Load() {
		j.done <- struct{}{} // buffered: never blocks; release drains an unread one
	}
}

// Release drops the executor's reference: the executor calls it once, after Run has
// returned (or will never start) and Done has returned (or will never be called).
func (j *job) Release() { j.drop() }

// awaitDone returns a channel that is ready once the outcome is recorded. Of Done and
// awaitDone, at least one sees the other's flag, so the outcome is never missed.
func (j *job) awaitDone() <-chan struct{} {
	j.parked.Store(true)
	if j.finished.Load() {
		return closedChan
	}
	return j.done
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Notify implements fastmcp.Sink: it hands the notification to the HTTP side and waits until
// it has been written. An inline run holds it for the answer instead (see heldNotes).
func (j *job) Notify(ctx context.Context, msg []byte) error {
	if j.inline.Load() {
		return j.held.add(msg)
	}
	return j.hand(ctx, msg)
}

// Request implements fastmcp.Requester: the server-to-client request goes to the HTTP side as
// a notification does (it opens the POST's event stream); the client answers it with a POST
// of its own (see endpoint.admitBody). An inline run cannot wait for that answer:
// fastmcp.ErrCannotWait.
func (j *job) Request(ctx context.Context, msg []byte) error {
	if j.inline.Load() {
		return fastmcp.ErrCannotWait
	}
	return j.hand(ctx, msg)
}

// hand gives msg to the HTTP side and waits until it has been written.
func (j *job) hand(ctx context.Context, msg []byte) error {
	select {
	case j.notes <- msg:
	case <-j.left:
		select { // for the next one: the HTTP side has left for good
		case j.left <- struct{}{}:
		default:
		}
		return errAnswered
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-j.ack:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// principal is the caller's principal, "" when unauthenticated.
func (j *job) principal() string {
	if j.identity == nil {
		return ""
	}
	return j.identity.Principal
}

var _ fastmcp.Requester = (*job)(nil)
var _ pool.Task = (*job)(nil)
var _ pool.Releaser = (*job)(nil)

// errAnswered is what a notification gets once its request has been answered (or refused at
// its deadline): nothing reads them any more.
var errAnswered = errors.New("streamable: the request has been answered")
