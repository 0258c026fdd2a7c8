package streamable

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/sse"
)

// RequestHandler mounts the endpoint into an application's own fasthttp server, or a Fiber
// app (whose c.Context() is the *fasthttp.RequestCtx), built on [Endpoint.Prepare]. The
// application owns the connections: what it must bound itself, and what the handler
// enforces, is in "Mounting in a fasthttp server" in the package doc. Its methods are safe
// for concurrent use.
type RequestHandler struct {
	ep       *endpoint
	draining atomic.Bool
	streams  streamSet
	// framed holds the request contexts whose current request HeaderReceived saw chunked:
	// fasthttp forgets the request's head before ErrorHandler runs. Every HeaderReceived
	// sets or clears its context's entry, so an entry never outlives the next request on its
	// context (fasthttp reuses a context for every request of a connection and then for other
	// connections), and the map holds at most one entry per context fasthttp made.
	framed sync.Map
}

// NewRequestHandler returns the handler serving srv under cfg at cfg.Path (other paths get
// 404: route only the endpoint's path to it, or let it answer them). Invalid configuration
// is an error wrapping [ErrInvalidConfig].
func NewRequestHandler(srv *fastmcp.Server, cfg Config) (*RequestHandler, error) {
	ep, err := newEndpoint(srv, cfg, true)
	if err != nil {
		return nil, err
	}
	return &RequestHandler{ep: ep}, nil
}

// Stats returns the handler's counters.
func (h *RequestHandler) Stats() Stats { return h.ep.stats.snapshot() }

// identityKey is the user value under which SetIdentity keeps a verified caller.
type identityUserKey struct{}

// SetIdentity attaches the caller the application's authentication verified to a request,
// for the handler to give the core (a RequestGate's identity wins). In Fiber,
// SetIdentity(c.Context(), id) before c.Next().
func SetIdentity(ctx *fasthttp.RequestCtx, id *fastmcp.Identity) {
	ctx.SetUserValue(identityUserKey{}, id)
}

// Handler returns the fasthttp.RequestHandler to mount.
func (h *RequestHandler) Handler() fasthttp.RequestHandler { return h.serve }

// HeaderReceived, as the fasthttp.Server's HeaderReceived (with ErrorHandler as its
// ErrorHandler), lets the handler refuse a body before fasthttp reads it: a Content-Length
// past MaxBodyBytes (413) or a Transfer-Encoding (411) is then answered at once, and the
// body must arrive within BodyTimeout. Without it fasthttp reads such bodies (up to its own
// MaxRequestBodySize) before the handler refuses them.
func (h *RequestHandler) HeaderReceived(rh *fasthttp.RequestHeader) fasthttp.RequestConfig {
	rc := fasthttp.RequestConfig{ReadTimeout: h.ep.cfg.BodyTimeout}
	ctx := ctxOfHeader(rh)
	if h.ep.cfg.RequestGate != nil {
		// The gate runs on the head, as on the native listener; the decision is the
		// request's, in a user value (fasthttp resets them after each request): an
		// admission as its gatePass, which costs no allocation.
		g := h.ep.gateHead(ctx)
		if g.answers() {
			ctx.SetUserValue(headGateKey{}, &headGate{gateResult: g, bodySkipped: skipBody(rh)})
			h.forgetFramed(ctx)
			return rc
		}
		ctx.SetUserValue(headGateKey{}, gatePass{g.d.Identity})
	}
	switch n := rh.ContentLength(); {
	case n == -1: // chunked: fasthttp forgets the head before ErrorHandler runs
		h.framed.Store(ctx, struct{}{})
		rc.MaxRequestBodySize = 1 // refused: read as little of it as possible
		noContinue(rh)
		return rc
	case n > h.ep.cfg.MaxBodyBytes:
		rc.MaxRequestBodySize = 1
		noContinue(rh)
	}
	h.forgetFramed(ctx)
	return rc
}

// forgetFramed clears an earlier request's entry of ctx in framed.
func (h *RequestHandler) forgetFramed(ctx *fasthttp.RequestCtx) {
	if _, stale := h.framed.Load(ctx); stale {
		h.framed.Delete(ctx)
	}
}

// headGate is the gate's answer to a request's head, from HeaderReceived to the handler.
type headGate struct {
	gateResult
	bodySkipped bool
}

type headGateKey struct{}

// takeFramed reports whether HeaderReceived saw the current request of ctx chunked,
// forgetting it.
func (h *RequestHandler) takeFramed(ctx *fasthttp.RequestCtx) bool {
	_, ok := h.framed.LoadAndDelete(ctx)
	return ok
}

// ErrorHandler, as the fasthttp.Server's ErrorHandler, answers what fasthttp could not read
// in the endpoint's words: 411 for a chunked body, 413 past the size limit, 431 for a head
// past fasthttp's ReadBufferSize, 400 otherwise. fasthttp then closes the connection.
func (h *RequestHandler) ErrorHandler(ctx *fasthttp.RequestCtx, err error) {
	e := errBadRequest
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge) && h.takeFramed(ctx),
		errors.Is(err, fasthttp.ErrUnsupportedTransferEncoding):
		e = errLengthRequired
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		e = errBodyTooLarge
	case isSmallBuffer(err):
		e = errHeaderTooLarge
	}
	ctx.SetConnectionClose()
	h.ep.refused.count(e)
	writeFast(ctx, errorResponse(e, nil))
}

// writeFast sends r as the response of ctx.
func writeFast(ctx *fasthttp.RequestCtx, r Response) {
	ctx.SetStatusCode(r.Status)
	if r.ContentType != "" {
		ctx.SetContentType(r.ContentType)
	}
	for k, v := range r.Header {
		ctx.Response.Header.Set(k, v)
	}
	if r.Close {
		ctx.SetConnectionClose()
	}
	ctx.SetBody(r.Body)
}

// hasField reports whether a raw head has a field named name.
func hasField(raw []byte, name string) bool {
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		if i := bytes.IndexByte(line, ':'); i >= 0 && equalFoldASCII(name, line[:i]) {
			return true
		}
	}
	return false
}

// fastHeadBytes is the size of the request head as fasthttp read it.
func fastHeadBytes(rh *fasthttp.RequestHeader) int {
	return len(rh.Method()) + len(rh.RequestURI()) + len(rh.Protocol()) + len("  \r\n\r\n") + len(rh.RawHeaders())
}

func (h *RequestHandler) serve(ctx *fasthttp.RequestCtx) {
	ep := h.ep
	if h.draining.Load() {
		ctx.SetConnectionClose()
		ep.refused.count(errShuttingDown)
		writeFast(ctx, errorResponse(errShuttingDown, nil))
		return
	}
	rh := &ctx.Request.Header
	req := Request{
		Method: rh.Method(), Path: ctx.Path(), Host: targetHost(ctx),
		Header:        fastHeaders{rh},
		HeadBytes:     fastHeadBytes(rh),
		ContentLength: int64(rh.ContentLength()),
		Body:          ctx.Request.Body(),
	}
	// By now fasthttp has read the body and forgotten its framing: the raw head tells.
	raw := rh.RawHeaders()
	req.TransferEncoding = hasField(raw, "Transfer-Encoding")
	if req.TransferEncoding {
		h.takeFramed(ctx) // an empty chunked body, read in full
	} else if !hasField(raw, "Content-Length") {
		req.ContentLength = -1
	}
	if id, ok := ctx.UserValue(identityUserKey{}).(*fastmcp.Identity); ok {
		req.Identity = id
	}
	switch hg := ctx.UserValue(headGateKey{}).(type) {
	case *headGate:
		req.gated, req.bodySkipped = &hg.gateResult, hg.bodySkipped
	case gatePass:
		hg.into(&req)
	default:
		if ep.cfg.RequestGate != nil {
			// Without HeaderReceived the gate runs here, after the body was read.
			ep.gateHead(ctx).into(&req)
		}
	}
	if canProbePeer {
		req.Peer = &peerProbe{conn: ctx.Conn()}
	}
	p, resp, ok := ep.prepare(&req)
	if !ok {
		writeFast(ctx, resp)
		return
	}
	if p.verb != nil {
		h.serveSessionVerb(ctx, *p.verb)
		return
	}
	if p.j.rules.Streams(p.j.msg.Method().Text()) {
		h.serveListen(ctx, p)
		return
	}
	h.execute(ctx, p)
}

// execute runs a request and answers it through the exchange loop: at its first
// notification the response turns into an event stream, written by fasthttp's body stream
// writer (which keeps the application's response headers and the connection's keep-alive),
// each event bounded by WriteTimeout on the connection. The executor enforces
// RequestTimeout; the Peer, if any, is asked every probeInterval whether the client went
// away.
func (h *RequestHandler) execute(ctx *fasthttp.RequestCtx, p Prepared) {
	ep, j := h.ep, p.j
	jctx, cancel := context.WithCancel(context.Background())
	mh := &j.mount
	*mh = mountHost{ctx: ctx, ep: ep, j: j, stop: cancel}
	j.begin()
	key := ep.hostKey()
	ep.register(j, key)
	if err := j.submit(jctx, key); err != nil {
		ep.respond(mh, errorResponse(submitError(err), j.msg.ID().Raw()))
		cancel()
		j.release()
		return
	}
	mh.begin(p.peer, &j.probe)
	if !ep.exchange(j, mh) {
		cancel()
		j.release()
	}
}

// mountHost is the mount's side of the exchange loop.
type mountHost struct {
	ctx *fasthttp.RequestCtx
	ep  *endpoint
	j   *job
	peerWatch
	stop context.CancelFunc
}

func (h *mountHost) respond(r Response) { writeFast(h.ctx, r) }

func (h *mountHost) abandon() { abandon(h.ctx) }

func (h *mountHost) stream(pump func(*sse.Writer, error)) bool {
	setStreamHeaders(&h.ctx.Response.Header)
	h.ctx.SetStatusCode(http.StatusOK)
	_ = h.ctx.SetWriteDeadline(time.Time{}) // not the server's WriteTimeout: each event has its own
	nc := h.ctx.Conn()                      // for the events' deadlines; fasthttp resets it after
	j, stop, cfg := h.j, h.stop, h.ep.sseConfig()
	h.ctx.SetBodyStreamWriter(func(w *bufio.Writer) {
		defer j.release()
		defer stop()
		sw, _ := sse.NewWriter(w, nc, cfg)
		pump(sw, nil)
	})
	return true
}

func (h *mountHost) gone() <-chan struct{} { return nil }

func (h *mountHost) cancel() { h.stop() }

// serveListen serves a listen stream on the hijacked connection, as the native listener
// does: the application's fasthttp worker and request are released, an idle stream costs
// one goroutine, and the response head (with the headers the application set before the
// handler ran) goes out with the acknowledgement; a listen the core refuses first gets a
// JSON response. The stream closes its connection when it ends.
func (h *RequestHandler) serveListen(ctx *fasthttp.RequestCtx, p Prepared) {
	ep, j := h.ep, p.j
	release, err := ep.exec.Slots().Acquire(context.Background())
	if err != nil {
		ep.refused.count(errSubscriptions)
		writeFast(ctx, errorResponse(errSubscriptions, j.msg.ID().Raw()))
		p.Release()
		return
	}
	// The stream holds the connection, not the request: the body fasthttp read (copied into
	// the job, which drops it at the acknowledgement) goes now.
	ctx.Request.SwapBody(nil)
	head := new(fasthttp.ResponseHeader)
	ctx.Response.Header.CopyTo(head)
	ctx.HijackSetNoResponse(true)
	ctx.Hijack(func(c net.Conn) {
		defer c.Close()
		defer release()
		defer p.Release()
		h.runListen(c, head, j)
	})
}

func (h *RequestHandler) runListen(c net.Conn, head *fasthttp.ResponseHeader, j *job) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h.streams.add(c, cancel)
	defer h.streams.remove(c)
	h.ep.serveStream(ctx, j, &headStream{c: c, head: head, ep: h.ep})
}

// headStream is a listen stream's host on a connection the mount hijacked: its response
// head is the application's, with the headers set before the handler ran.
type headStream struct {
	c    net.Conn
	head *fasthttp.ResponseHeader
	ep   *endpoint
}

func (s *headStream) openStream() (*sse.Writer, error) {
	setStreamHeaders(s.head)
	if err := s.writeHead(http.StatusOK); err != nil {
		return nil, err
	}
	return sse.NewWriter(s.c, s.c, s.ep.sseConfig())
}

func (s *headStream) respondJSON(status int, body []byte) {
	s.head.SetContentType("application/json")
	s.head.SetContentLength(len(body))
	if s.writeHead(status) == nil {
		_, _ = s.c.Write(body)
	}
}

// writeHead writes the head with status; the connection closes after the response.
func (s *headStream) writeHead(status int) error {
	s.head.SetStatusCode(status)
	s.head.SetConnectionClose()
	_ = s.c.SetWriteDeadline(time.Now().Add(s.ep.cfg.WriteTimeout))
	_, err := s.c.Write(s.head.Header())
	return err
}

// Close drains the handler: new requests get 503 "Server is shutting down", each open listen
// stream gets its completion response (through the core's CloseSubscriptions, which ends the
// subscriptions of every transport serving the same fastmcp.Server), those still open after
// DrainTimeout (or when ctx ends) are closed, and an owned executor stops. Requests of other
// kinds run on the application's connections: its server's Shutdown waits for them, so call
// Close after it. Close returns nil when the streams ended within the window.
func (h *RequestHandler) Close(ctx context.Context) error {
	ep := h.ep
	if !h.draining.CompareAndSwap(false, true) {
		return nil
	}
	drain, cancel := context.WithTimeout(ctx, ep.cfg.DrainTimeout)
	defer cancel()
	ep.srv.CloseSubscriptions()
	ep.stopSessions()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for h.streams.len() > 0 && drain.Err() == nil {
		select {
		case <-drain.Done():
		case <-tick.C:
		}
	}
	err := drain.Err()
	h.streams.closeAll()
	if ep.ownExec {
		cctx, ccancel := context.WithTimeout(context.Background(), time.Second)
		_ = ep.exec.Close(cctx)
		ccancel()
	}
	ep.stats.drains.Add(1)
	return err
}
