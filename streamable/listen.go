package streamable

import (
	"context"
	"net"
	"sync"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/sse"
)

// listenHost is one host's side of a listen stream (endpoint.serveStream).
type listenHost interface {
	// openStream sends the stream's head and returns where its events go.
	openStream() (*sse.Writer, error)
	// respondJSON answers a listen the core refused before acknowledging it.
	respondJSON(status int, body []byte)
}

// serveStream serves a listen stream on the caller's goroutine until the subscription ends
// (the completion response is the last event), ctx ends, or a write fails. The head goes
// out with the acknowledgement: a listen the core refuses first (an invalid filter, the
// subscription budget, a shutdown) gets an ordinary JSON response with its status instead.
// It reports whether the stream opened; when it did not and nothing was answered (ctx
// ended first), the host closes the connection.
func (ep *endpoint) serveStream(ctx context.Context, j *job, h listenHost) (opened bool) {
	ep.stats.openStreams.Add(1)
	defer ep.stats.openStreams.Add(-1)
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sink := &streamSink{j: j, cancel: cancel, open: h.openStream}
	defer sink.stop()
	hctx := lctx
	if j.identity != nil {
		hctx = fastmcp.WithIdentity(hctx, j.identity)
	}
	r := ep.core.Serve(hctx, &j.state, &j.msg, sink, nil)
	switch {
	case r.Body == nil || lctx.Err() != nil:
	case sink.w == nil:
		h.respondJSON(j.rules.HTTPStatus(r.Err), r.Body)
	default:
		_ = sink.w.WriteEvent(r.Body)
	}
	return sink.w != nil
}

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
