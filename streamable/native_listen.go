package streamable

import (
	"context"
	"net"
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
	c := ctx.Conn().(*conn)
	ctx.HijackSetNoResponse(true)
	ctx.Hijack(func(net.Conn) {
		go func() {
			defer c.Close()
			defer release()
			defer j.release()
			s.runListen(c, j)
		}()
	})
}

// runListen serves one listen stream on a hijacked connection until the subscription ends
// (the completion response is the last event), the client goes away (a failed write), or
// the drain window closes it.
func (s *Server) runListen(c net.Conn, j *job) {
	ep := s.ep
	ep.stats.openStreams.Add(1)
	defer ep.stats.openStreams.Add(-1)
	lctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.streams.add(c, cancel)
	defer s.streams.remove(c)

	_ = c.SetWriteDeadline(time.Now().Add(ep.cfg.WriteTimeout))
	if _, err := c.Write([]byte(streamHead)); err != nil {
		return
	}
	sw, _ := sse.NewWriter(c, c, sse.Config{WriteTimeout: ep.cfg.WriteTimeout})
	sink := &streamSink{w: sw, cancel: cancel}
	keepalive := time.AfterFunc(ep.cfg.KeepAliveInterval, nil)
	keepalive.Stop()
	tick := func() {
		if err := sw.WriteKeepAlive(); err != nil {
			cancel() // the client went away
			return
		}
		keepalive.Reset(ep.cfg.KeepAliveInterval)
	}
	keepalive = time.AfterFunc(ep.cfg.KeepAliveInterval, tick)
	defer keepalive.Stop()

	ctx := lctx
	if j.identity != nil {
		ctx = fastmcp.WithIdentity(ctx, j.identity)
	}
	r := ep.srv.Handle(ctx, &j.msg, sink, nil)
	if r.Body != nil && lctx.Err() == nil {
		_ = sw.WriteEvent(r.Body)
	}
}

// streamSink writes a stream's notifications as events; a failed write ends the stream.
type streamSink struct {
	w      *sse.Writer
	cancel context.CancelFunc
}

func (k *streamSink) Notify(_ context.Context, msg []byte) error {
	if err := k.w.WriteEvent(msg); err != nil {
		k.cancel()
		return err
	}
	return nil
}
