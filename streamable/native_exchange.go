package streamable

import (
	"bufio"
	"context"
	"net/http"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/fastmcp-go/fastmcp/sse"
)

// execute runs an admitted request and answers it. A request that cannot stream (no
// progress token, no 2026-07-28 log level) runs inline, on the connection's goroutine, when
// a worker is free: it saves the hand-off, holds its notifications for the answer, and one
// that needs to wait for the client (an initialize-era server-to-client request) completes
// asking for a rerun, which goes to a worker while this goroutine serves its event stream.
// Any other runs on a worker, answered by the exchange loop. The executor enforces
// RequestTimeout (one deadline heap for all requests; it reports a timeout even when a
// handler ignores its context); the server's coarse tick starts watching the connection of
// a request still running after about two ticks, so a fast request sets no timer.
func (s *Server) execute(ctx *fasthttp.RequestCtx, j *job) {
	ep := s.ep
	c := connOf(ctx.Conn())
	key := keyOf(c)
	h := &j.native
	*h = nativeHost{ctx: ctx, c: c, s: s, j: j}
	j.begin()
	ep.register(j, key)
	if !s.cfg.DisableInline && !j.mayStream() {
		c.beginInline()
		j.inlining.Store(true)
		inline, err := j.submitInline(context.Background(), key)
		j.inlining.Store(false)
		gone := c.endInline()
		switch {
		case err != nil:
			ep.respond(h, errorResponse(submitError(err), j.msg.ID().Raw()))
			j.release()
			return
		case inline && gone:
			ep.stats.disconnects.Add(1)
			<-j.awaitDone()
			if j.completed() && j.reply != nil {
				ep.answer(j, h) // it finished all the same: the real outcome
			} else {
				h.abandon()
			}
			j.release()
			return
		case inline:
			<-j.awaitDone() // recorded already: no channel operation
			if !j.rerunDue() {
				ep.answer(j, h)
				j.release()
				return
			}
			if !ep.rerun(j, h) {
				j.release()
				return
			}
		}
		// Queued (or rerun): it runs on a worker.
	} else if err := j.submit(context.Background(), key); err != nil {
		ep.respond(h, errorResponse(submitError(err), j.msg.ID().Raw()))
		j.release()
		return
	}
	if !ep.exchange(j, h) {
		j.release()
	}
}

// nativeHost is the native listener's side of the exchange loop: it answers through
// fasthttp's request context, streams through a body stream writer, and watches the
// connection for a client gone once the request has run two of the server's ticks.
type nativeHost struct {
	ctx   *fasthttp.RequestCtx
	c     *conn
	s     *Server
	j     *job
	ticks int
}

func (h *nativeHost) respond(r Response) { writeFast(h.ctx, r) }

func (h *nativeHost) abandon() { abandon(h.ctx) }

func (h *nativeHost) stream(pump func(*sse.Writer, error)) bool {
	setStreamHeaders(&h.ctx.Response.Header)
	h.ctx.SetStatusCode(http.StatusOK)
	_ = h.ctx.SetWriteDeadline(time.Time{}) // events carry their own bound
	j, cfg := h.j, sse.Config{WriteTimeout: h.s.ep.cfg.WriteTimeout}
	h.ctx.SetBodyStreamWriter(func(w *bufio.Writer) {
		defer j.release()
		sw, _ := sse.NewWriter(w, nil, cfg)
		pump(sw, nil)
	})
	return true
}

func (h *nativeHost) looks() <-chan struct{} { return h.s.tick.C() }

func (h *nativeHost) look() bool {
	if h.ticks++; h.ticks == 2 {
		h.c.watch(nil)
	}
	return false
}

func (h *nativeHost) gone() <-chan struct{} {
	if h.c.watching {
		return h.c.gone
	}
	return nil
}

func (h *nativeHost) unwatch() bool { return h.c.unwatch() }

func (h *nativeHost) cancel() { h.s.ep.exec.Cancel(keyOf(h.c), errDisconnected) }
