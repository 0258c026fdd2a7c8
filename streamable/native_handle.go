package streamable

import (
	"errors"
	"net"
	"net/http"

	"github.com/valyala/fasthttp"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// fastHeaders adapts fasthttp's request header to Headers without allocating.
type fastHeaders struct{ h *fasthttp.RequestHeader }

func (f fastHeaders) Values(name string) [][]byte { return f.h.PeekAll(name) }

// headerReceived runs once the head is read, before the body: it notes what the handler
// needs to know of the head in the connection's reqState, runs the gate, arms the body
// deadline, and keeps a body it will refuse from being read.
func (s *Server) headerReceived(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
	ctx := ctxOfHeader(h)
	rc := fasthttp.RequestConfig{ReadTimeout: s.ep.cfg.BodyTimeout}
	c := connOf(ctx.Conn())
	if c == nil {
		return rc // not a connection of the listener's (Serve wraps every one)
	}
	c.req = reqState{}
	if s.ep.cfg.RequestGate != nil && !s.skipsGate(ctx) {
		c.req.gate, c.req.gated = s.ep.gateHead(ctx), true // the body deadline starts after the gate
		if c.req.gate.answers() {
			c.req.bodySkipped = skipBody(h)
			return rc
		}
	}
	// fasthttp reports a chunked body as -1 and none as -2 (it then reads an empty body and
	// forgets). It drops "Transfer-Encoding: identity" altogether, but closes the connection
	// of a request with both framings, so only such heads need a look at their raw lines.
	switch n := h.ContentLength(); {
	case n < 0 || h.ConnectionClose() && hasTransferEncoding(h.RawHeaders()):
		c.req.lengthRequired = true
		if n != -2 {
			rc.MaxRequestBodySize = 1 // refused with 411: read as little of it as possible
			noContinue(h)
		}
	case n > s.ep.cfg.MaxBodyBytes:
		noContinue(h) // refused with 413 before the body
	}
	return rc
}

// handleError answers what fasthttp could not read: 413 for a body over the limit (411 for
// one framed by a Transfer-Encoding), 431 for a head over the limit, 411 for a
// Transfer-Encoding fasthttp cannot parse, 400 otherwise (timeouts included). fasthttp then
// closes the connection.
func (s *Server) handleError(ctx *fasthttp.RequestCtx, err error) {
	if s.refusePlaintext(err) {
		return
	}
	e := errBadRequest
	var netErr interface{ Timeout() bool }
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		e = errBodyTooLarge
		// A body is read only after its head, whose reqState is this request's.
		if c := connOf(ctx.Conn()); c != nil && c.req.lengthRequired {
			e = errLengthRequired
		}
	case errors.Is(err, fasthttp.ErrUnsupportedTransferEncoding):
		e = errLengthRequired
	case isSmallBuffer(err):
		e = errHeaderTooLarge
	case errors.As(err, &netErr) && netErr.Timeout():
		if s.draining.Load() { // a head or body still arriving when the drain began
			e = errShuttingDown
			break
		}
		// fasthttp wraps a read error of the head and hands over one of the body as the
		// connection returned it.
		if _, body := err.(*net.OpError); body && !handshaking(ctx.Conn()) {
			s.ep.stats.bodyTimeouts.Add(1)
		} else {
			s.ep.stats.headTimeouts.Add(1)
		}
	}
	ctx.SetConnectionClose()
	s.writeError(ctx, e, nil)
}

// writeError answers with the transport's error e, replacing whatever the response held
// except a Connection: close already decided.
func (s *Server) writeError(ctx *fasthttp.RequestCtx, e *httpError, id []byte) {
	s.ep.refused.count(e)
	closing := ctx.Response.ConnectionClose()
	ctx.Response.Reset()
	if closing {
		ctx.Response.SetConnectionClose()
	}
	ctx.SetStatusCode(e.status)
	if e.allow {
		ctx.Response.Header.Set("Allow", http.MethodPost)
	}
	if e.noBody {
		return
	}
	ctx.SetContentType("application/json")
	ctx.Response.SetBodyRaw(e.appendBody(ctx.Response.Body()[:0], id))
}

func (s *Server) handle(ctx *fasthttp.RequestCtx) {
	s.serveRequest(ctx)
	if s.draining.Load() {
		// Every response of a drain closes its connection. fasthttp does so too once its
		// own shutdown has begun, which comes after the drain's first steps.
		ctx.Response.SetConnectionClose()
	}
}

func (s *Server) serveRequest(ctx *fasthttp.RequestCtx) {
	ep := s.ep
	if s.serveHealth(ctx) {
		return
	}
	req := &ctx.Request
	c := connOf(ctx.Conn())
	h := &c.headers
	h.reset(&req.Header)
	c.busy.Store(true)
	defer c.busy.Store(false)
	var identity *fastmcp.Identity
	if ep.cfg.RequestGate != nil {
		var served bool
		if identity, served = s.takeGate(ctx, c); served {
			return
		}
	}
	if v, e, ok := ep.admitSessionVerb(req.Header.Method(), ctx.Path(), h, targetHost(ctx), principalOf(identity)); ok {
		s.serveSessionVerb(ctx, v, e)
		return
	}
	if e := ep.admitHead(req.Header.Method(), ctx.Path(), h, targetHost(ctx)); e != nil {
		s.writeError(ctx, e, nil)
		return
	}
	if c.req.lengthRequired {
		ctx.SetConnectionClose() // the framing of what follows is unknown
		s.writeError(ctx, errLengthRequired, nil)
		return
	}
	j := acquireJob(ep)
	j.body = append(j.body[:0], req.Body()...)
	j.identity = identity
	j.received = ctx.Time()
	e, body := ep.admitBody(j, h)
	switch {
	case body != nil:
		ctx.SetStatusCode(e.status)
		ctx.SetContentType("application/json")
		ctx.SetBody(body)
		j.release()
		return
	case e != nil:
		s.writeError(ctx, e, j.msg.ID().Raw())
		j.release()
		return
	}
	if j.rules.Streams(j.msg.Method().Text()) {
		s.serveListen(ctx, j)
		return
	}
	s.execute(ctx, j)
}

// targetHost is the host a request names: the authority of an absolute-form target
// (RFC 9112 §3.2.2: the Host header is then ignored), else the Host header.
func targetHost(ctx *fasthttp.RequestCtx) []byte {
	if t := ctx.Request.Header.RequestURI(); len(t) > 0 && t[0] != '/' {
		return ctx.URI().Host()
	}
	return ctx.Request.Header.Host()
}

// abandon ends a request whose client went away with no response at all: fasthttp hands
// the connection over without writing (not even its default 200), and it is closed.
func abandon(ctx *fasthttp.RequestCtx) {
	ctx.HijackSetNoResponse(true)
	ctx.Hijack(closeHijacked)
}

func closeHijacked(c net.Conn) { _ = c.Close() }

func isSmallBuffer(err error) bool {
	var sb *fasthttp.ErrSmallBuffer
	return errors.As(err, &sb)
}
