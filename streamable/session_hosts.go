package streamable

import (
	"context"
	"net"
	"net/http"

	"github.com/valyala/fasthttp"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// The session verbs (GET opens the session's stream, DELETE ends it) on each host.

// principalOf is id's principal, "" when there is none.
func principalOf(id *fastmcp.Identity) string {
	if id == nil {
		return ""
	}
	return id.Principal
}

// serveSessionVerb answers a session's GET or DELETE on the native listener; a GET's
// stream takes a subscription slot and runs on its own goroutine over the hijacked
// connection, as a listen stream does.
func (s *Server) serveSessionVerb(ctx *fasthttp.RequestCtx, v sessionVerb, e *httpError) {
	ep := s.ep
	switch {
	case e != nil:
		s.writeError(ctx, e, nil)
		return
	case v.delete:
		ep.endSession(v.ref)
		ctx.SetStatusCode(http.StatusOK)
		return
	}
	release, err := ep.exec.Slots().Acquire(context.Background())
	if err != nil {
		s.writeError(ctx, errSubscriptions, nil)
		return
	}
	nc := ctx.Conn()
	c := connOf(nc)
	c.headers = headerSet{} // it points into the request context, which fasthttp recycles
	ctx.HijackSetNoResponse(true)
	ctx.Hijack(func(net.Conn) {
		go func() {
			defer c.Close()
			defer release()
			sctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s.streams.add(c, cancel)
			defer s.streams.remove(c)
			ep.serveSessionStream(sctx, v, &rawStream{nc: nc, ep: ep})
		}()
	})
}

// serveSessionVerb answers a session's GET or DELETE on the fasthttp mount; a GET's stream
// runs on the hijacked connection, as a listen stream does.
func (h *RequestHandler) serveSessionVerb(ctx *fasthttp.RequestCtx, v sessionVerb) {
	ep := h.ep
	if v.delete {
		ep.endSession(v.ref)
		ctx.SetStatusCode(http.StatusOK)
		return
	}
	release, err := ep.exec.Slots().Acquire(context.Background())
	if err != nil {
		ep.refused.count(errSubscriptions)
		writeFast(ctx, errorResponse(errSubscriptions, nil))
		return
	}
	head := new(fasthttp.ResponseHeader)
	ctx.Response.Header.CopyTo(head)
	ctx.HijackSetNoResponse(true)
	ctx.Hijack(func(c net.Conn) {
		defer c.Close()
		defer release()
		sctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		h.streams.add(c, cancel)
		defer h.streams.remove(c)
		ep.serveSessionStream(sctx, v, &headStream{c: c, head: head, ep: ep})
	})
}

// executeSessionVerb answers a session's GET or DELETE for Endpoint.Execute (net/http
// among its hosts): a GET's stream runs on the caller's goroutine until it ends.
func (ep *endpoint) executeSessionVerb(ctx context.Context, v sessionVerb, s Streamer) Response {
	if v.delete {
		ep.endSession(v.ref)
		return Response{Status: http.StatusOK}
	}
	release, err := ep.exec.Slots().Acquire(ctx)
	if err != nil {
		ep.refused.count(errSubscriptions)
		return errorResponse(errSubscriptions, nil)
	}
	defer release()
	h := streamerListen{s: s, cfg: ep.sseConfig()}
	if ep.serveSessionStream(ctx, v, &h) {
		return Response{Streamed: true}
	}
	return Response{Close: true}
}
