package gateway

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// An initialize-era backend asks for input with server-to-client requests (elicitation,
// sampling, roots) during a call, and waits for their answers. The Gateway's client hands
// each to inputHandler, which passes it to the caller's request as an InputRequired round:
// the backend's call keeps running on a goroutine of its own, parked on this replica under
// an id that the caller's sealed requestState names, until the caller's retry brings the
// answer (or InputTimeout passes, and the backend's call is cancelled). A retry that lands
// on another replica reaches it over a shared bus (parked_bus.go), else it is refused: see
// the package doc.

// stateParked tags the Gateway's state of a parked call: this replica's id (8 bytes) and
// the call's id (uvarint) follow.
const stateParked byte = 2

var (
	errParkedElsewhere = fastmcp.NewError(fastmcp.CodeInvalidParams, "Invalid params: the backend request waiting for this input is held by another gateway replica", nil)
	errParkedGone      = fastmcp.NewError(fastmcp.CodeInvalidParams, "Invalid params: the backend request waiting for this input has ended (answered, expired or cancelled)", nil)
	errTooManyParked   = fastmcp.NewError(fastmcp.CodeInternalError, "Too many backend requests waiting for input", nil)
)

// inputAsk is one server-to-client request of a backend, waiting for its answer.
type inputAsk struct {
	method string
	params json.RawMessage
	reply  chan askReply // buffered: the answer is never blocked on
}

type askReply struct {
	result json.RawMessage
	err    error
}

type callOutcome struct {
	v   any
	err error
}

// parkedCall is one call to an initialize-era backend that may ask for input.
type parkedCall struct {
	b      *backend
	asks   chan inputAsk    // from inputHandler, taken by await
	done   chan callOutcome // buffered: the call's goroutine never blocks on it
	cancel context.CancelFunc
	caps   json.RawMessage // the caller's clientCapabilities, when this round began
	relay  *relay          // the call's progress and log messages, to the round waiting

	rounds int
	id     uint64   // its id while parked (under parking.mu)
	key    string   // the input request's key in the caller's round
	ask    inputAsk // the request the caller is asked to answer
	timer  *time.Timer
}

// parking holds this replica's parked calls.
type parking struct {
	replica [8]byte
	max     int
	timeout time.Duration

	mu    sync.Mutex
	next  uint64
	calls map[uint64]*parkedCall
}

func newParking(max int, timeout time.Duration) *parking {
	p := &parking{max: max, timeout: timeout, calls: map[uint64]*parkedCall{}}
	_, _ = rand.Read(p.replica[:])
	return p
}

// waiting reports how many calls are parked.
func (pk *parking) waiting() int {
	pk.mu.Lock()
	defer pk.mu.Unlock()
	return len(pk.calls)
}

type parkedKey struct{}

// legacyCall runs one request to an initialize-era backend (run, whose progress and log
// messages go to rl, attached to r), relaying its input requests to the caller. A first
// round starts run; a retry resumes the parked call its state names with the caller's
// answer, its relay attached to the retry while it waits.
func (b *backend) legacyCall(ctx context.Context, r *fastmcp.Request, rl *relay, run func(context.Context) (any, error)) (any, error) {
	pk := b.g.parking
	st := r.State()
	if len(st) == 0 {
		if !asksAnything(callerCapabilities(r)) {
			return run(ctx) // a caller that answers nothing: no goroutine, the handler refuses
		}
		p := b.start(r, rl, run)
		if r.Dialect().Legacy() {
			// The Server's bridge retries an initialize-era request within its own context,
			// so once that ends the call's rounds are over: a call still parked was dropped
			// (the transport served the request again elsewhere, or its caller left).
			context.AfterFunc(ctx, func() { pk.abandon(p) })
		}
		return pk.await(ctx, p)
	}
	if st[0] != stateParked {
		return nil, errForeignState
	}
	p, err := pk.resume(st[1:])
	if err == errParkedElsewhere && b.g.replicas != nil {
		return b.g.replicas.retry(ctx, b, r, st[1:]) // parked_bus.go
	}
	if err != nil {
		return nil, err
	}
	p.relay.attach(ctx, r)
	defer p.relay.detach()
	return pk.answer(ctx, p, callerCapabilities(r), r.InputResponses())
}

// answer continues the parked call p with a retry's capabilities and inputResponses: the
// answer to its request goes to the backend and the call is awaited again, or, when the
// retry did not answer, the request is asked again.
func (pk *parking) answer(ctx context.Context, p *parkedCall, caps, responses json.RawMessage) (any, error) {
	p.caps = append(p.caps[:0], caps...)
	answer := decode.Lookup(responses, p.key)
	if !answer.Present() {
		return nil, pk.park(p)
	}
	p.ask.reply <- askReply{result: append(json.RawMessage(nil), answer.Raw()...)}
	return pk.await(ctx, p)
}

// start runs the backend call on a goroutine of its own: it outlives the caller's first
// round. It ends with the call, or when cancelled (the caller went away, InputTimeout).
func (b *backend) start(r *fastmcp.Request, rl *relay, run func(context.Context) (any, error)) *parkedCall {
	cctx, cancel := context.WithCancel(context.Background())
	p := &parkedCall{b: b, asks: make(chan inputAsk), done: make(chan callOutcome, 1), cancel: cancel,
		caps: append(json.RawMessage(nil), callerCapabilities(r)...), relay: rl}
	cctx = context.WithValue(cctx, parkedKey{}, p)
	b.inflight.Add(1)
	go func() {
		defer b.inflight.Add(-1)
		defer cancel()
		v, err := run(cctx)
		p.done <- callOutcome{v, err}
	}()
	return p
}

// await waits for the parked call's next input request (returned as the caller's
// InputRequired) or its end. The caller going away cancels the backend's call.
func (pk *parking) await(ctx context.Context, p *parkedCall) (any, error) {
	for {
		select {
		case ask := <-p.asks:
			if !hasCapability(p.caps, ask.method) {
				ask.reply <- askReply{err: &client.Error{Code: int64(fastmcp.CodeMethodNotFound), Message: "The client does not support " + ask.method}}
				continue
			}
			p.rounds++
			p.key, p.ask = inputKey(ask.method, p.rounds), ask
			return nil, pk.park(p)
		case out := <-p.done:
			return out.v, out.err
		case <-ctx.Done():
			p.cancel()
			return nil, ctx.Err()
		}
	}
}

// park registers p under a new id and returns the caller's InputRequired naming it; past
// MaxParkedCalls the backend's call is cancelled and the caller gets errTooManyParked.
func (pk *parking) park(p *parkedCall) error {
	pk.mu.Lock()
	if len(pk.calls) >= pk.max {
		pk.mu.Unlock()
		p.cancel()
		return errTooManyParked
	}
	pk.next++
	id := pk.next
	pk.calls[id], p.id = p, id
	p.timer = time.AfterFunc(pk.timeout, func() {
		if pk.take(id) == p {
			p.cancel()
		}
	})
	pk.mu.Unlock()
	state := append([]byte{stateParked}, pk.replica[:]...)
	return &fastmcp.InputRequired{
		Requests: map[string]fastmcp.InputRequest{p.key: {Method: p.ask.method, Params: p.ask.params}},
		State:    binary.AppendUvarint(state, id),
	}
}

// cancelAll cancels every parked call (Gateway.Close).
func (pk *parking) cancelAll() {
	pk.mu.Lock()
	defer pk.mu.Unlock()
	for id, p := range pk.calls {
		p.timer.Stop()
		p.cancel()
		delete(pk.calls, id)
	}
}

// abandon cancels p and drops it when parked.
func (pk *parking) abandon(p *parkedCall) {
	pk.mu.Lock()
	if pk.calls[p.id] == p {
		delete(pk.calls, p.id)
		p.timer.Stop()
	}
	pk.mu.Unlock()
	p.cancel()
}

func (pk *parking) take(id uint64) *parkedCall {
	pk.mu.Lock()
	defer pk.mu.Unlock()
	p := pk.calls[id]
	delete(pk.calls, id)
	return p
}

// resume takes the parked call a state names.
func (pk *parking) resume(st []byte) (*parkedCall, error) {
	if len(st) < len(pk.replica) {
		return nil, errForeignState
	}
	if [8]byte(st[:8]) != pk.replica {
		return nil, errParkedElsewhere
	}
	id, n := binary.Uvarint(st[8:])
	if n <= 0 {
		return nil, errForeignState
	}
	p := pk.take(id)
	if p == nil {
		return nil, errParkedGone
	}
	p.timer.Stop()
	return p, nil
}

// inputHandler answers a backend's server-to-client request method by handing it to the
// parked call it came in (the call's context names it). Outside a relayed call (a listing,
// a ping), or on a stdio backend with more than one call in flight (stdio does not say
// which call a request belongs to), it is refused.
func (b *backend) inputHandler(method string) client.InputHandler {
	return func(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
		p, _ := ctx.Value(parkedKey{}).(*parkedCall)
		if p == nil {
			return nil, &client.Error{Code: int64(fastmcp.CodeMethodNotFound), Message: "The client does not support " + method}
		}
		if b.spec.Command != "" && b.inflight.Load() > 1 {
			return nil, &client.Error{Code: int64(fastmcp.CodeInternalError), Message: "The gateway cannot tell which of its calls " + method + " belongs to"}
		}
		ask := inputAsk{method: method, params: append(json.RawMessage(nil), params...), reply: make(chan askReply, 1)}
		select {
		case p.asks <- ask:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		select {
		case rep := <-ask.reply:
			return rep.result, rep.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// inputKey names a relayed input request in the caller's round.
func inputKey(method string, round int) string {
	name := "input"
	switch method {
	case "elicitation/create":
		name = "elicitation"
	case "sampling/createMessage":
		name = "sampling"
	case "roots/list":
		name = "roots"
	}
	return name + "_" + strconv.Itoa(round)
}

// anyInput stands for the capabilities of a caller the Server knows nothing of.
var anyInput = json.RawMessage(`{"elicitation":{},"sampling":{},"roots":{}}`)

// callerCapabilities returns the capabilities r's caller declared. An initialize-era caller
// over stateless HTTP declared them to no one the Server remembers (nil): its bridge sends
// such a caller every input request, and so does the Gateway.
func callerCapabilities(r *fastmcp.Request) json.RawMessage {
	caps := r.ClientCapabilities()
	if caps == nil && r.Dialect().Legacy() {
		return anyInput
	}
	return caps
}

// asksAnything reports whether a caller declares any input capability.
func asksAnything(caps json.RawMessage) bool {
	return hasCapability(caps, "elicitation/create") || hasCapability(caps, "sampling/createMessage") || hasCapability(caps, "roots/list")
}

// hasCapability reports whether caps declares the capability an input method needs.
func hasCapability(caps json.RawMessage, method string) bool {
	var member string
	switch method {
	case "elicitation/create":
		member = "elicitation"
	case "sampling/createMessage":
		member = "sampling"
	case "roots/list":
		member = "roots"
	default:
		return false
	}
	return decode.Lookup(caps, member).Type() == decode.TypeObject
}
