package streamable

import (
	"bytes"
	"context"
	"sync"

	"github.com/valyala/fasthttp"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// GateRequest is what a RequestGate sees: the request before its body is read. Its bytes
// are valid until the gate returns; a decision that keeps any of them must copy them.
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

// runGate calls the gate with its timeout, turning faults into the transport's errors. The
// gate may outlive runGate (past its timeout): r must stay valid until the gate returns,
// which done, if not nil, is called after.
func (ep *endpoint) runGate(r GateRequest, done func()) (GateDecision, *httpError) {
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
		switch {
		case !res.ok || res.err != nil:
			return GateDecision{}, errGateFailed
		case res.d.Response != nil && (res.d.Response.Status < 100 || res.d.Response.Status > 599):
			return GateDecision{}, errGateFailed
		}
		return res.d, nil
	case <-ctx.Done():
		ep.stats.gateTimeouts.Add(1)
		return GateDecision{}, errGateTimeout
	}
}

// gateResults carries gate decisions from HeaderReceived (which sees only the header) to the
// handler of the same request, keyed by the request header.
type gateResults struct {
	m sync.Map // *fasthttp.RequestHeader -> gateResult
}

type gateResult struct {
	d   GateDecision
	err *httpError
}

// gateHeads holds the copies of request heads that gates read.
var gateHeads = sync.Pool{New: func() any { return new(fasthttp.RequestHeader) }}

func (s *Server) gateHeader(h *fasthttp.RequestHeader) {
	// A gate past its timeout still runs while fasthttp reuses h for the next request: the
	// gate reads a copy, recycled when it returns.
	hc := gateHeads.Get().(*fasthttp.RequestHeader)
	h.CopyTo(hc)
	gr := GateRequest{Method: hc.Method(), Path: hc.RequestURI(), Header: fastHeaders{hc}}
	if i := bytes.IndexByte(gr.Path, '?'); i >= 0 {
		gr.Path = gr.Path[:i]
	}
	d, e := s.ep.runGate(gr, func() {
		hc.Reset()
		gateHeads.Put(hc)
	})
	s.gates.m.Store(h, gateResult{d: d, err: e})
}

// takeGate returns the gate decision for the request, and whether it was answered.
func (s *Server) takeGate(ctx *fasthttp.RequestCtx) (served bool) {
	v, ok := s.gates.m.LoadAndDelete(&ctx.Request.Header)
	if !ok {
		s.writeError(ctx, errGateFailed, nil)
		return true
	}
	res := v.(gateResult)
	if res.err != nil {
		s.writeError(ctx, res.err, nil)
		return true
	}
	if r := res.d.Response; r != nil {
		ctx.SetStatusCode(r.Status)
		if r.ContentType != "" {
			ctx.SetContentType(r.ContentType)
		}
		for k, v := range r.Header {
			ctx.Response.Header.Set(k, v)
		}
		ctx.SetBody(r.Body)
		return true
	}
	if res.d.Identity != nil {
		ctx.SetUserValue(identityKey{}, res.d.Identity)
	}
	return false
}
