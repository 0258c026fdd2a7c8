package fastmcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/fastmcp-go/fastmcp/decode"
)

// Errors of the bridge between a legacy handler's InputRequired and the client.
var (
	errNoRequester   = &Error{Code: CodeInternalError, Message: "The transport cannot send requests to the client"}
	errInputCapacity = &Error{Code: CodeInternalError, Message: "Server input request capacity exhausted", unavailable: true}
	errNoInput       = &Error{Code: CodeInternalError, Message: "Server produced an invalid result"}
	errClientAnswer  = &Error{Code: CodeInternalError, Message: "The client answered with a malformed response"}
)

// cancelNotifyTimeout bounds the best-effort notifications/cancelled written for the
// requests a round withdraws: the request's own context has ended by then.
const cancelNotifyTimeout = time.Second

// requestIDPrefix starts the ids the server mints for its requests to the client; 128 random
// bits follow, so an id cannot be guessed to answer another client's request.
const requestIDPrefix = "fastmcp-"

// mintID returns a fresh unguessable id as a JSON string literal: the prefix and 22
// base64url characters, none of which need escaping.
func mintID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand documents it)
	return `"` + requestIDPrefix + base64.RawURLEncoding.EncodeToString(b[:]) + `"`
}

// outstanding is the set of server-to-client requests awaiting answers, server-wide. The zero
// value is empty and ready. One mutex over one map: Answer holds it for a lookup and a delete
// (see BenchmarkAnswer); this is not the hot path.
type outstanding struct {
	mu   sync.Mutex
	byID map[string]*pendingInput // by the id's JSON literal
}

// pendingInput is one request of a round, waiting for its answer.
type pendingInput struct {
	principal string // the identity the request was made for; its answer must come with it
	slot      int    // the request's place in its round
	round     *inputRound
}

// add registers the requests of one round under ids, unless that would take the table past
// max entries: then it registers none and reports false.
func (o *outstanding) add(ids []string, principal string, round *inputRound, max int) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.byID)+len(ids) > max {
		return false
	}
	if o.byID == nil {
		o.byID = make(map[string]*pendingInput)
	}
	for i, id := range ids {
		o.byID[id] = &pendingInput{principal: principal, slot: i, round: round}
	}
	return true
}

// take removes and returns the request with the id literal id, when principal is the one it
// was made for; nil otherwise (the request, if any, keeps waiting). held reports whether a
// request has the id, whoever it was made for.
func (o *outstanding) take(id []byte, principal string) (p *pendingInput, held bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	p = o.byID[string(id)]
	if p == nil || p.principal != principal {
		return nil, p != nil
	}
	delete(o.byID, string(id))
	return p, true
}

// principal returns the principal the request with the id literal id was made for.
func (o *outstanding) principal(id []byte) (string, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	p := o.byID[string(id)]
	if p == nil {
		return "", false
	}
	return p.principal, true
}

// withdraw removes the ids still registered and returns them: the requests still unanswered.
func (o *outstanding) withdraw(ids []string) []string {
	var left []string
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, id := range ids {
		if _, ok := o.byID[id]; ok {
			delete(o.byID, id)
			left = append(left, id)
		}
	}
	return left
}

// len returns the number of requests awaiting an answer.
func (o *outstanding) len() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.byID)
}

// inputRound collects the answers to one round of requests; done closes with the last.
type inputRound struct {
	done chan struct{}

	mu      sync.Mutex
	left    int
	answers []inputAnswer // by slot
}

// inputAnswer is the client's answer to one request: a result object or an error.
type inputAnswer struct {
	result []byte
	err    *Error
}

func newInputRound(n int) *inputRound {
	return &inputRound{done: make(chan struct{}), left: n, answers: make([]inputAnswer, n)}
}

// deliver records the answer in m for slot, copying every byte it keeps.
func (r *inputRound) deliver(slot int, m *decode.Message) {
	a := answerOf(m)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.answers[slot] = a
	if r.left--; r.left == 0 {
		close(r.done)
	}
}

// answerOf copies the answer a response message carries: its result object, or its error as
// an *Error; anything else is errClientAnswer.
func answerOf(m *decode.Message) inputAnswer {
	if e := m.Error(); e.Present() {
		return inputAnswer{err: clientError(e)}
	}
	if res := m.Result(); res.Type() == decode.TypeObject {
		return inputAnswer{result: bytes.Clone(res.Raw())}
	}
	return inputAnswer{err: errClientAnswer}
}

// clientError copies a JSON-RPC error object into an *Error; an object without an integer
// code in range and a string message is errClientAnswer.
func clientError(e decode.Value) *Error {
	if e.Type() != decode.TypeObject {
		return errClientAnswer
	}
	code, msg := decode.Lookup(e.Raw(), "code"), decode.Lookup(e.Raw(), "message")
	if code.Type() != decode.TypeInteger || msg.Type() != decode.TypeString {
		return errClientAnswer
	}
	n, err := strconv.ParseInt(string(code.Raw()), 10, 32)
	if err != nil {
		return errClientAnswer
	}
	out := &Error{Code: Code(n), Message: string(decode.Unquote(nil, msg.Raw()))}
	if data := decode.Lookup(e.Raw(), "data"); data.Present() {
		out.Data = bytes.Clone(data.Raw())
	}
	return out
}

// collect returns the round's answers by key (keys in slot order).
func (r *inputRound) collect(keys []string) *inputAnswers {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := &inputAnswers{}
	for i, a := range r.answers {
		if a.err != nil {
			if out.errs == nil {
				out.errs = make(map[string]*Error)
			}
			out.errs[keys[i]] = a.err
			continue
		}
		if out.results == nil {
			out.results = append(out.results, '{')
		} else {
			out.results = append(out.results, ',')
		}
		out.results = decode.AppendString(out.results, keys[i], false)
		out.results = append(append(out.results, ':'), a.result...)
	}
	if out.results != nil {
		out.results = append(out.results, '}')
	}
	return out
}

// inputAnswers is what the client answered to one round of server-to-client requests.
type inputAnswers struct {
	results []byte            // a JSON object: key -> the client's result object; nil when none
	errs    map[string]*Error // key -> the client's error response; nil when none
}

// Answer delivers a JSON-RPC response from the client (m is KindResponse) to the
// server-to-client request it answers. principal is the identity the answer arrived with
// ("" when none): it must be the one the request was made for. Answer reports false when
// no outstanding request has the id (a late, repeated or foreign answer) or the principal
// differs: the transport ignores it, and a request of another principal keeps waiting.
// With a shared EventBus an answer whose id no request here has is also published, for the
// replica whose request has it (see forwardAnswer), and still reported false.
// Answer copies what it keeps: the transport may release m when it returns. It is safe for
// concurrent use.
func (s *Server) answer(m *decode.Message, principal string) bool {
	if m.Kind() != decode.KindResponse {
		return false
	}
	id := m.ID()
	if id.Type() != decode.TypeString {
		return false // our ids are strings: a number is not ours
	}
	p, held := s.outstanding.take(id.Raw(), principal)
	if p == nil {
		if !held {
			s.forwardAnswer(m, id.Raw(), principal)
		}
		return false
	}
	p.round.deliver(p.slot, m)
	return true
}

// OutstandingRequests returns the number of server-to-client requests awaiting an answer.
func (s *Server) outstandingRequests() int { return s.outstanding.len() }

// bridgeInput sends the requests of ir to the client through sink (a [Requester]) as real
// JSON-RPC requests, adapted to c.Dialect, and waits for every answer (see transport.Endpoint.Answer),
// within ctx. It returns ErrCannotWait when the sink cannot wait here (nothing was sent), a
// context error when ctx ends (the requests still outstanding are then withdrawn and
// cancelled), or an *Error: a capability the client did not declare or the revision cannot
// carry (-32021), no Requester or no capacity left (-32603).
func (s *Server) bridgeInput(ctx context.Context, r *Request, c *ConnState, sink Sink, ir *InputRequired) (*inputAnswers, error) {
	keys := make([]string, 0, len(ir.Requests))
	for k := range ir.Requests {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	msgs, err := s.inputMessages(r, c, keys, ir)
	if err != nil {
		return nil, err
	}
	rq, ok := sink.(Requester)
	if !ok {
		return nil, errNoRequester
	}
	ids := make([]string, len(keys))
	for i := range ids {
		ids[i] = mintID()
	}
	s.subscribeAnswers()
	round := newInputRound(len(keys))
	if !s.outstanding.add(ids, principalOf(ctx), round, s.cfg.MaxOutstandingRequests) {
		s.cfg.Logger.Warn("fastmcp: server-to-client requests at capacity", "limit", s.cfg.MaxOutstandingRequests)
		return nil, errInputCapacity
	}
	for i, body := range msgs {
		msg := appendClientRequest(nil, ids[i], ir.Requests[keys[i]].Method, body)
		if err := rq.Request(ctx, msg); err != nil {
			left := s.outstanding.withdraw(ids)
			if i == 0 && errors.Is(err, ErrCannotWait) {
				return nil, ErrCannotWait
			}
			s.cancelInputs(ctx, sink, slices.DeleteFunc(left, func(id string) bool { return !slices.Contains(ids[:i], id) }), err)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if errors.Is(err, ErrCannotWait) {
				return nil, errNoRequester // the transport changed its mind mid-round
			}
			return nil, err
		}
	}
	select {
	case <-round.done:
		return round.collect(keys), nil
	case <-ctx.Done():
		s.cancelInputs(ctx, sink, s.outstanding.withdraw(ids), ctx.Err())
		return nil, ctx.Err()
	}
}

// inputMessages checks the requests of ir, in the order of keys, against the client's
// capabilities (when known) and its revision, and returns each one's params as the revision
// carries them.
func (s *Server) inputMessages(r *Request, c *ConnState, keys []string, ir *InputRequired) ([][]byte, error) {
	if len(keys) == 0 {
		s.cfg.Logger.Error("fastmcp: InputRequired without requests", "method", r.Method())
		return nil, errNoInput
	}
	var missing capabilitySet
	for _, k := range keys {
		req := ir.Requests[k]
		if inputKindOf(req.Method) == 0 || !json.Valid(req.Params) || !bytes.HasPrefix(bytes.TrimLeft(req.Params, " \t\r\n"), []byte("{")) {
			s.cfg.Logger.Error("fastmcp: invalid input request", "method", r.Method(), "key", k, "input", req.Method)
			return nil, errInvalidResult
		}
		if c.Capabilities != nil {
			missing.need(req, c.Capabilities)
		}
	}
	if c.Dialect == Legacy20250618 {
		missing.samplingContext = false // 2025-06-18 has includeContext and no capability for it
	}
	if !missing.empty() {
		return nil, legacyError(missing.error())
	}
	out := make([][]byte, len(keys))
	for i, k := range keys {
		p, err := adaptInput(c.Dialect, ir.Requests[k])
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}

// legacyError is e without the admission mark: a capability a handler needs is not a fault
// of the request's envelope in the initialize-era dialects, whose errors stay JSON-RPC errors.
func legacyError(e *Error) *Error {
	e.admission = false
	return e
}

// adaptInput returns the params of req, compacted to one line, as revision d carries them:
// 2025-06-18 has no elicitation mode (form is implied; url cannot be asked) and no sampling
// tools; 2025-11-25 needs an elicitationId for url mode, which the server mints when the
// handler gave none.
func adaptInput(d Dialect, req InputRequest) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Compact(&b, req.Params); err != nil {
		return nil, errInvalidResult
	}
	p := b.Bytes()
	switch req.Method {
	case "elicitation/create":
		mode := decode.Lookup(p, "mode")
		url := mode.String() == "url"
		switch {
		case d == Legacy20250618 && url:
			return nil, legacyError((&capabilitySet{url: true}).error())
		case d == Legacy20250618 && mode.Present():
			p = withoutMember(p, "mode")
		case url && !decode.Lookup(p, "elicitationId").Present():
			p = withMember(p, "elicitationId", mintID())
		}
	case "sampling/createMessage":
		if d == Legacy20250618 && (decode.Lookup(p, "tools").Present() || decode.Lookup(p, "toolChoice").Present()) {
			return nil, legacyError((&capabilitySet{samplingTools: true}).error())
		}
	}
	return p, nil
}

// withoutMember returns the compact JSON object obj without its member key.
func withoutMember(obj []byte, key string) []byte {
	out := make([]byte, 0, len(obj))
	out = append(out, '{')
	decode.Members(obj, func(k, v []byte, _ decode.Type) bool {
		if string(decode.Unquote(nil, append(append([]byte{'"'}, k...), '"'))) == key {
			return true
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(append(append(out, '"'), k...), `":`...), v...)
		return true
	})
	return append(out, '}')
}

// withMember returns the compact JSON object obj with the member key: value (a JSON
// literal) appended.
func withMember(obj []byte, key, value string) []byte {
	end := bytes.LastIndexByte(obj, '}')
	out := append([]byte(nil), obj[:end]...)
	if len(out) > 1 { // compact: anything past the brace is a member
		out = append(out, ',')
	}
	out = decode.AppendString(out, key, false)
	out = append(append(out, ':'), value...)
	return append(out, '}')
}

// appendClientRequest writes one JSON-RPC request to the client: id is a JSON literal,
// params a compact JSON object.
func appendClientRequest(dst []byte, id, method string, params []byte) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = append(dst, id...)
	dst = append(dst, `,"method":`...)
	dst = decode.AppendString(dst, method, false)
	dst = append(dst, `,"params":`...)
	dst = append(dst, params...)
	return append(dst, '}')
}

// cancelInputs tells the client, best effort and within cancelNotifyTimeout, that the
// requests ids (JSON literals) are withdrawn because of cause.
func (s *Server) cancelInputs(ctx context.Context, sink Sink, ids []string, cause error) {
	if len(ids) == 0 {
		return
	}
	reason := "The server withdrew the request"
	switch {
	case errors.Is(cause, context.DeadlineExceeded):
		reason = "The request timed out"
	case errors.Is(cause, context.Canceled):
		reason = "The request was cancelled"
	}
	nctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelNotifyTimeout)
	defer cancel()
	var msg []byte
	for _, id := range ids {
		msg = append(msg[:0], `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`...)
		msg = append(msg, id...)
		msg = append(msg, `,"reason":`...)
		msg = decode.AppendString(msg, reason, false)
		msg = append(msg, `}}`...)
		if err := sink.Notify(nctx, msg); err != nil {
			s.cfg.Logger.Debug("fastmcp: cannot send notifications/cancelled", "err", err)
			return
		}
	}
}
