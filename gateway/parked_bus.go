package gateway

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// A call parked on another replica. When the Server shares its bus with the other replicas
// (fastmcp.Server.SharedBus: serve --bus), a retry whose state names another replica is
// carried there: this replica publishes the caller's answers as a fastmcp.Relay event on the
// parking replica's topic and waits; that replica takes the call, says so at once ("held"),
// hands the answer to the backend's waiting request, and publishes the call's outcome back —
// the next round's input request (parked there again), or the call's result or error —
// which this replica answers the caller with. No replica keeps state for another: a lost
// event costs the caller a timeout, never a wrong answer. What the backend sends between
// the caller's rounds (progress, log messages) is not carried between replicas.

const (
	relayTopic = "fastmcp-gateway/" // + the replica's id in hex: the messages for it

	opResume  = "resume"  // a retry for a call parked on the addressee
	opHeld    = "held"    // the addressee took the call: its outcome follows
	opOutcome = "outcome" // the call's outcome, to the waiting retry
	opCancel  = "cancel"  // the retry's caller went away: cancel the backend's call
)

var errParkedUnreachable = fastmcp.NewError(fastmcp.CodeInternalError, "The gateway replica holding the backend request waiting for this input did not answer", nil)

// relayMessage is what replicas say to each other about a parked call (JSON in Event.Data).
type relayMessage struct {
	Op      string `json:"op"`
	From    string `json:"from"`   // the sender's id, in hex: where answers go
	Waiter  uint64 `json:"waiter"` // the retry waiting on the sender
	Backend string `json:"backend,omitempty"`

	// resume
	Call      uint64          `json:"call,omitempty"`
	Responses json.RawMessage `json:"responses,omitempty"` // the caller's inputResponses
	Caps      json.RawMessage `json:"caps,omitempty"`      // the caller's clientCapabilities

	// outcome: one of these
	Tool  *relayedTool    `json:"tool,omitempty"`
	Raw   json.RawMessage `json:"raw,omitempty"`
	Error *relayedError   `json:"error,omitempty"`
	Input *relayedRound   `json:"input,omitempty"`
}

type relayedTool struct {
	Raw               json.RawMessage `json:"raw,omitempty"`
	Content           json.RawMessage `json:"content,omitempty"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

type relayedError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

type relayedRound struct {
	Requests map[string]relayedRequest `json:"requests"`
	State    []byte                    `json:"state"`
}

type relayedRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// replicaBus carries retries between the Gateway's replicas over the Server's bus.
type replicaBus struct {
	g       *Gateway
	self    string // this replica's id, in hex
	unsub   func()
	ackWait time.Duration // how long a retry waits for "held" (ConnectTimeout)

	mu      sync.Mutex
	next    uint64
	waiters map[uint64]chan relayMessage
	running map[remoteRetry]context.CancelFunc // retries of other replicas running here
}

type remoteRetry struct {
	from   string
	waiter uint64
}

func newReplicaBus(g *Gateway) *replicaBus {
	return &replicaBus{g: g, self: hex.EncodeToString(g.parking.replica[:]), ackWait: g.cfg.ConnectTimeout,
		waiters: map[uint64]chan relayMessage{}, running: map[remoteRetry]context.CancelFunc{}}
}

func (rb *replicaBus) start() { rb.unsub = rb.g.srv.Subscribe(rb.deliver) }

func (rb *replicaBus) stop() {
	if rb.unsub != nil {
		rb.unsub()
	}
	rb.mu.Lock()
	defer rb.mu.Unlock()
	for k, cancel := range rb.running {
		cancel()
		delete(rb.running, k)
	}
}

// publish sends m to the replica whose id is to (hex); false when it is too large for the bus.
func (rb *replicaBus) publish(to string, m relayMessage) bool {
	m.From = rb.self
	data, err := json.Marshal(m)
	if err != nil || len(data) > fastmcp.MaxEventData {
		return false
	}
	rb.g.srv.Publish(fastmcp.Event{Kind: fastmcp.Relay, Topic: relayTopic + to, Data: data})
	return true
}

// deliver is the subscription: the messages for this replica. It never blocks.
func (rb *replicaBus) deliver(e fastmcp.Event) {
	if e.Kind != fastmcp.Relay || e.Topic != relayTopic+rb.self {
		return
	}
	var m relayMessage
	if json.Unmarshal(e.Data, &m) != nil {
		return
	}
	switch m.Op {
	case opResume:
		go rb.serveRetry(m)
	case opCancel:
		rb.mu.Lock()
		cancel := rb.running[remoteRetry{m.From, m.Waiter}]
		rb.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	case opHeld, opOutcome:
		rb.mu.Lock()
		ch := rb.waiters[m.Waiter]
		rb.mu.Unlock()
		if ch != nil {
			select {
			case ch <- m:
			default: // a duplicate: the waiter has what it needs
			}
		}
	}
}

// retry carries a caller's retry (r) for the call parked on the replica its state st names
// (its id, then the call's), and returns what that replica answers, as legacyCall would.
func (rb *replicaBus) retry(ctx context.Context, b *backend, r *fastmcp.Request, st []byte) (any, error) {
	to := hex.EncodeToString(st[:8])
	call, n := binary.Uvarint(st[8:])
	if n <= 0 {
		return nil, errForeignState
	}
	ch := make(chan relayMessage, 2)
	rb.mu.Lock()
	rb.next++
	w := rb.next
	rb.waiters[w] = ch
	rb.mu.Unlock()
	defer func() {
		rb.mu.Lock()
		delete(rb.waiters, w)
		rb.mu.Unlock()
	}()
	if !rb.publish(to, relayMessage{Op: opResume, Waiter: w, Backend: b.spec.Name, Call: call,
		Responses: r.InputResponses(), Caps: callerCapabilities(r)}) {
		return nil, answerTooLarge(b.spec.Name)
	}
	// First "held" within ackWait (else the replica is gone), then the outcome within the
	// parking replica's own bound on the call (InputTimeout), and the time to hear it.
	wait := time.NewTimer(rb.ackWait)
	defer wait.Stop()
	held := false
	for {
		select {
		case m := <-ch:
			if m.Op == opOutcome {
				return m.outcome()
			}
			if !held {
				held = true
				wait.Reset(rb.g.cfg.InputTimeout + rb.ackWait)
			}
		case <-wait.C:
			if !held {
				return nil, errParkedUnreachable
			}
			return nil, answerTimedOut(b.spec.Name)
		case <-ctx.Done():
			rb.publish(to, relayMessage{Op: opCancel, Waiter: w})
			return nil, ctx.Err()
		}
	}
}

// serveRetry runs, on the replica that parked it, a retry another replica carried here.
func (rb *replicaBus) serveRetry(m relayMessage) {
	pk := rb.g.parking
	p := pk.take(m.Call)
	if p != nil {
		p.timer.Stop()
	}
	if p == nil || p.b.spec.Name != m.Backend {
		if p != nil {
			p.cancel() // a state this Gateway did not issue for that backend (a bug elsewhere)
		}
		rb.publish(m.From, relayMessage{Op: opOutcome, Waiter: m.Waiter, Error: asRelayedError(errParkedGone)})
		return
	}
	rb.publish(m.From, relayMessage{Op: opHeld, Waiter: m.Waiter})
	ctx, cancel := context.WithTimeout(context.Background(), pk.timeout)
	key := remoteRetry{m.From, m.Waiter}
	rb.mu.Lock()
	rb.running[key] = cancel
	rb.mu.Unlock()
	defer func() {
		rb.mu.Lock()
		delete(rb.running, key)
		rb.mu.Unlock()
		cancel()
	}()
	v, err := pk.answer(ctx, p, m.Caps, m.Responses)
	if err != nil {
		err = p.b.forwardError(ctx, err)
		if errors.Is(err, context.Canceled) {
			return // the caller went away: nobody waits for the outcome
		}
		if errors.Is(err, context.DeadlineExceeded) {
			err = answerTimedOut(p.b.spec.Name)
		}
	}
	out := relayMessage{Op: opOutcome, Waiter: m.Waiter}
	out.setOutcome(v, err)
	if !rb.publish(m.From, out) {
		p.b.log.Warn("gateway: a call's outcome is too large to carry to the replica its caller's retry came to", "limit", fastmcp.MaxEventData)
		rb.publish(m.From, relayMessage{Op: opOutcome, Waiter: m.Waiter, Error: asRelayedError(answerTooLarge(p.b.spec.Name))})
	}
}

// setOutcome encodes a call's result or error (as forwardError leaves it).
func (m *relayMessage) setOutcome(v any, err error) {
	var (
		input *fastmcp.InputRequired
		own   *fastmcp.Error
	)
	switch {
	case errors.As(err, &input):
		round := &relayedRound{Requests: make(map[string]relayedRequest, len(input.Requests)), State: input.State}
		for k, req := range input.Requests {
			round.Requests[k] = relayedRequest{Method: req.Method, Params: req.Params}
		}
		m.Input = round
	case errors.As(err, &own):
		m.Error = asRelayedError(own)
	case err != nil:
		m.Error = asRelayedError(fastmcp.NewError(fastmcp.CodeInternalError, "Internal error", nil))
	default:
		switch res := v.(type) {
		case *client.CallToolResult:
			m.Tool = &relayedTool{Raw: res.Raw, Content: res.Content, StructuredContent: res.StructuredContent, IsError: res.IsError}
		case json.RawMessage:
			m.Raw = res
		}
	}
}

// outcome decodes what setOutcome encoded, in legacyCall's terms.
func (m *relayMessage) outcome() (any, error) {
	switch {
	case m.Input != nil:
		ir := &fastmcp.InputRequired{Requests: make(map[string]fastmcp.InputRequest, len(m.Input.Requests)), State: m.Input.State}
		for k, req := range m.Input.Requests {
			ir.Requests[k] = fastmcp.InputRequest{Method: req.Method, Params: req.Params}
		}
		return nil, ir
	case m.Error != nil:
		return nil, fastmcp.NewError(fastmcp.Code(m.Error.Code), m.Error.Message, m.Error.Data)
	case m.Tool != nil:
		return &client.CallToolResult{Raw: m.Tool.Raw, Content: m.Tool.Content, StructuredContent: m.Tool.StructuredContent, IsError: m.Tool.IsError}, nil
	case m.Raw != nil:
		return m.Raw, nil
	}
	return nil, fastmcp.NewError(fastmcp.CodeInternalError, "Internal error", nil)
}

func asRelayedError(e *fastmcp.Error) *relayedError {
	return &relayedError{Code: int64(e.Code), Message: e.Message, Data: e.Data}
}
