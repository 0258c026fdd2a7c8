package streamable

import (
	"context"
	"sync"

	"github.com/valyala/fasthttp"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// GateRequest is what a RequestGate sees: the request before its body is read. Path is the
// path the endpoint routes on: decoded and normalized, and an absolute-form target's path
// (never its scheme and authority, nor the query). Its bytes are valid until the gate
// returns; a decision that keeps any of them must copy them.
type GateRequest struct {
	Method, Path []byte
	Header       Headers
}

// GateResponse is a response a gate serves itself (its own route, or a refusal such as 401).
type GateResponse struct {
	Status      int
	ContentType string
	Header      map[string]string
	Body        []byte
}

// GateDecision is a gate's answer.
type GateDecision struct {
	// Response, if set, is served instead of the MCP endpoint.
	Response *GateResponse
	// Identity, if set, is the verified caller, attached to the request's context for the
	// core, its authorization policy and its handlers.
	Identity *fastmcp.Identity
}

// RequestGate admits requests before their body is read. It runs with RequestGateTimeout
// (504 past it); a gate that panics, fails or returns an invalid response fails closed with
// 500. It may be called concurrently.
type RequestGate func(ctx context.Context, r GateRequest) (GateDecision, error)

// QuickGate is the part of a gate that decides without blocking (a token its cache
// remembers, a static key): it runs inline, on the request's goroutine, before the
// [RequestGate], which runs only when it returns ok false. Its decision means what the
// RequestGate's does. No timeout bounds it, so it must not wait on I/O or on locks held for
// long; a panic or an invalid response fails closed with 500. r is the request's own head,
// not a copy: it must not be modified. It may be called concurrently.
type QuickGate func(r GateRequest) (d GateDecision, ok bool)

// quickGate runs the QuickGate, if any, on r: decided reports an answer, the gate's or its
// failure. r need stay valid only until it returns.
func (ep *endpoint) quickGate(r GateRequest) (g gateResult, decided bool) {
	if ep.cfg.RequestGateQuick == nil {
		return gateResult{}, false
	}
	defer func() {
		if p := recover(); p != nil {
			ep.cfg.Logger.Error("streamable: request gate panicked", "panic", p)
			g, decided = gateResult{err: errGateFailed}, true
		}
	}()
	d, ok := ep.cfg.RequestGateQuick(r)
	if !ok {
		return gateResult{}, false
	}
	return checkedDecision(d, nil), true
}

// checkedDecision is the result of a gate that returned d and err: a failure or an invalid
// response fails closed.
func checkedDecision(d GateDecision, err error) gateResult {
	if err != nil || d.Response != nil && (d.Response.Status < 100 || d.Response.Status > 599) {
		return gateResult{err: errGateFailed}
	}
	return gateResult{d: d}
}

// runGate calls the gate with its timeout, turning faults into the transport's errors. The
// gate may outlive runGate (past its timeout): r must stay valid until the gate returns,
// which done, if not nil, is called after.
func (ep *endpoint) runGate(r GateRequest, done func()) gateResult {
	ctx, cancel := context.WithTimeout(context.Background(), ep.cfg.RequestGateTimeout)
	defer cancel()
	type result struct {
		d   GateDecision
		err error
		ok  bool
	}
	ch := make(chan result, 1)
	go func() {
		res := result{}
		defer func() {
			if p := recover(); p != nil {
				ep.cfg.Logger.Error("streamable: request gate panicked", "panic", p)
				res = result{}
			}
			if done != nil {
				done()
			}
			ch <- res
		}()
		res.d, res.err = ep.cfg.RequestGate(ctx, r)
		res.ok = true
	}()
	select {
	case res := <-ch:
		if !res.ok {
			return gateResult{err: errGateFailed}
		}
		return checkedDecision(res.d, res.err)
	case <-ctx.Done():
		ep.stats.gateTimeouts.Add(1)
		return gateResult{err: errGateTimeout}
	}
}

// gateResult is a gate's decision, carried from HeaderReceived (which sees only the header)
// to the handler of the same request in its connection's reqState.
type gateResult struct {
	d   GateDecision
	err *httpError
}

// gateCopy is what a gate reads: a copy of the head and of the routed path, because a gate
// past its timeout still runs while fasthttp reuses the request for the next one. It is
// recycled when the gate returns.
type gateCopy struct {
	h    fasthttp.RequestHeader
	path []byte
}

var gateCopies = sync.Pool{New: func() any { return new(gateCopy) }}

// gateHead runs the gate on the head of the request ctx is reading: the QuickGate on the
// head itself, and the RequestGate, if it must, on a copy. The gate sees the path the
// endpoint routes on (fasthttp's parsed path: an absolute-form target's, decoded and
// normalized), not the raw target, so it cannot be stepped around by spelling the path
// differently.
func (ep *endpoint) gateHead(ctx *fasthttp.RequestCtx) gateResult {
	h := &ctx.Request.Header
	if g, ok := ep.quickGate(GateRequest{Method: h.Method(), Path: ctx.Path(), Header: fastHeaders{h}}); ok {
		return g
	}
	gc := gateCopies.Get().(*gateCopy)
	h.CopyTo(&gc.h)
	gc.path = append(gc.path[:0], ctx.Path()...)
	gr := GateRequest{Method: gc.h.Method(), Path: gc.path, Header: fastHeaders{&gc.h}}
	return ep.runGate(gr, func() {
		gc.h.Reset()
		gateCopies.Put(gc)
	})
}

// gatePass is a gate's admission of a request: the identity it verified, or nil. Being a
// pointer, it is carried (in a fasthttp user value, into a Request) without allocating.
type gatePass struct{ id *fastmcp.Identity }

// passedGate is the decision Request.gated points to for a request its gate admitted, the
// identity moved to Request.Identity (which it wins over). It is never modified.
var passedGate = &gateResult{}

// into hands the admission to prepare in r.
func (p gatePass) into(r *Request) {
	if p.id != nil {
		r.Identity = p.id
	}
	r.gated = passedGate
}

// into hands the gate's result to prepare in r; only an answer is allocated.
func (g gateResult) into(r *Request) {
	if !g.answers() {
		gatePass{g.d.Identity}.into(r)
		return
	}
	answer := new(gateResult)
	*answer = g
	r.gated = answer
}

// answers reports whether the gate's decision is the request's answer: its own response,
// or its failure.
func (g *gateResult) answers() bool { return g.err != nil || g.d.Response != nil }

// response is the answer of a decision that answers.
func (g *gateResult) response() Response {
	if g.err != nil {
		return errorResponse(g.err, nil)
	}
	r := g.d.Response
	return Response{Status: r.Status, ContentType: r.ContentType, Header: r.Header, Body: r.Body}
}

// skipBody keeps fasthttp from reading the body of a request its gate answered from the
// head, or inviting it with "100 Continue": the head now declares no body, and the
// connection closes after the answer (it reports whether a body was declared), so the bytes
// the client sends anyway are never read as a request. An unauthenticated client thus
// holds no body buffer, whatever Content-Length it declares.
func skipBody(h *fasthttp.RequestHeader) (declared bool) {
	noContinue(h)
	if n := h.ContentLength(); n == 0 || n == -2 {
		return false
	}
	h.SetContentLength(0)
	return true
}

// noContinue keeps fasthttp from answering "Expect: 100-continue" with "100 Continue" for a
// request about to be refused from its head (413, 411, a gate's answer): the client is not
// invited to send a body that will not be read.
func noContinue(h *fasthttp.RequestHeader) { h.Del(fasthttp.HeaderExpect) }

// takeGate applies the gate decision for the request: it reports whether the request was
// answered, and returns the verified identity otherwise. An answer to a request whose body
// was skipped closes the connection.
func (s *Server) takeGate(ctx *fasthttp.RequestCtx, c *conn) (id *fastmcp.Identity, served bool) {
	res, ok, skipped := c.req.gate, c.req.gated, c.req.bodySkipped
	c.req.gated, c.req.gate = false, gateResult{}
	switch {
	case !ok:
		s.writeError(ctx, errGateFailed, nil)
		return nil, true
	case !res.answers():
		return res.d.Identity, false
	}
	if skipped {
		ctx.SetConnectionClose()
	}
	if res.err != nil {
		s.writeError(ctx, res.err, nil)
		return nil, true
	}
	writeFast(ctx, res.response())
	return nil, true
}
