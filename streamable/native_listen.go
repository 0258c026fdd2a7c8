package streamable

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/sse"
)

// streamHead is the response head of a listen stream. The body ends when the connection
// closes, so the stream needs no chunked framing and the connection is not reused.
const streamHead = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nX-Accel-Buffering: no\r\nConnection: close\r\n\r\n"

// streamSet tracks open listen streams, for Shutdown.
type streamSet struct {
	mu    sync.Mutex
	conns map[net.Conn]context.CancelFunc
}

func (t *streamSet) add(c net.Conn, cancel context.CancelFunc) {
	t.mu.Lock()
	if t.conns == nil {
		t.conns = map[net.Conn]context.CancelFunc{}
	}
	t.conns[c] = cancel
	t.mu.Unlock()
}

func (t *streamSet) remove(c net.Conn) {
	t.mu.Lock()
	delete(t.conns, c)
	t.mu.Unlock()
}

// closeAll ends every stream abruptly (the drain window is over).
func (t *streamSet) closeAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for c, cancel := range t.conns {
		cancel()
		_ = c.Close()
	}
}

func (t *streamSet) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.conns)
}

// serveListen takes a subscription slot and hands the connection to a stream goroutine that
// owns it from then on: the fasthttp worker is released, so an idle stream costs one
// goroutine, a timer and the subscription itself.
func (s *Server) serveListen(ctx *fasthttp.RequestCtx, j *job) {
	ep := s.ep
	release, err := ep.exec.Slots().Acquire(context.Background())
	if err != nil {
		s.writeError(ctx, errSubscriptions, j.msg.ID().Raw())
		j.release()
		return
	}
	// The stream runs on its own goroutine over the listener's connection, and the hijack
	// handler returns at once: fasthttp then drops its request context and its read buffer
	// (MaxHeaderBytes large) instead of holding them for the stream's life.
	nc := ctx.Conn() // the stream writes through it: c, or TLS over c
	c := connOf(nc)
	// The connection's header index points into the request context, which fasthttp recycles
	// with the request's body buffer (kept at its largest size): the stream must not pin it.
	c.headers = headerSet{}
	ctx.HijackSetNoResponse(true)
	ctx.Hijack(func(net.Conn) {
		go func() {
			defer c.Close()
			defer release()
			defer j.release()
			s.runListen(c, nc, j)
		}()
	})
}

// runListen serves one listen stream on a hijacked connection until the subscription ends
// (the completion response is the last event), the client goes away (a failed write), or
// the drain window closes it. The response head goes out with the acknowledgement: a listen
// the core refuses first (an invalid filter, the subscription budget, a shutdown) gets an
// ordinary JSON error response with its status instead.
// It writes through nc, which is c or a TLS connection over it.
func (s *Server) runListen(c, nc net.Conn, j *job) {
	ep := s.ep
	ep.stats.openStreams.Add(1)
	defer ep.stats.openStreams.Add(-1)
	lctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.streams.add(c, cancel)
	defer s.streams.remove(c)

	sink := &streamSink{j: j, cancel: cancel, open: func() (*sse.Writer, error) {
		_ = nc.SetWriteDeadline(time.Now().Add(ep.cfg.WriteTimeout))
		if _, err := nc.Write([]byte(streamHead)); err != nil {
			return nil, err
		}
		return sse.NewWriter(nc, nc, ep.sseConfig())
	}}
	defer sink.stop()
	ctx := lctx
	if j.identity != nil {
		ctx = fastmcp.WithIdentity(ctx, j.identity)
	}
	r := ep.core.Serve(ctx, &j.state, &j.msg, sink, nil)
	switch {
	case r.Body == nil || lctx.Err() != nil:
	case sink.w == nil:
		_ = nc.SetWriteDeadline(time.Now().Add(ep.cfg.WriteTimeout))
		_ = writeJSONResponse(nc, j.rules.HTTPStatus(r.Err), r.Body)
	default:
		_ = sink.w.WriteEvent(r.Body)
	}
}

// writeJSONResponse writes a whole JSON response on a hijacked connection, which is closed
// after it (Connection: close).
func writeJSONResponse(c net.Conn, status int, body []byte) error {
	head := make([]byte, 0, 128)
	head = append(head, "HTTP/1.1 "...)
	head = strconv.AppendInt(head, int64(status), 10)
	head = append(head, ' ')
	head = append(head, http.StatusText(status)...)
	head = append(head, "\r\nContent-Type: application/json\r\nContent-Length: "...)
	head = strconv.AppendInt(head, int64(len(body)), 10)
	head = append(head, "\r\nConnection: close\r\n\r\n"...)
	_, err := (&net.Buffers{head, body}).WriteTo(c)
	return err
}

// streamSink writes a listen stream's notifications as events. The first, the
// acknowledgement, opens the stream: open writes the response head and returns the event
// writer, its keepalives start ([sse.Writer.KeepAlive]: a comment after each silent
// KeepAliveInterval, one timer), and the job lets go of the request (its body, its decoded
// message, its buffers), which the core no longer reads (see transport.Endpoint.Serve): an idle
// stream keeps only its subscription. A failed write, event or keepalive, ends the stream.
type streamSink struct {
	open   func() (*sse.Writer, error)
	j      *job
	cancel context.CancelFunc

	w      *sse.Writer // nil until the stream is open
	stopKA func()
}

func (k *streamSink) Notify(_ context.Context, msg []byte) error {
	if k.w == nil {
		w, err := k.open()
		if err != nil {
			k.cancel()
			return err
		}
		k.w = w
		k.j.dropRequest()
		k.stopKA = w.KeepAlive(k.cancel)
	}
	if err := k.w.WriteEvent(msg); err != nil {
		k.cancel()
		return err
	}
	return nil
}

func (k *streamSink) stop() {
	if k.stopKA != nil {
		k.stopKA()
	}
}

// dropRequest lets go of what a listen stream's job holds of its request once the stream is
// acknowledged. The job itself stays with the stream (the core keeps its message's address
// until Handle returns), empty.
func (j *job) dropRequest() {
	j.msg.Reset()
	j.body, j.reply = nil, nil
}
