package streamable

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/sse"
)

// Handler is the net/http adapter: the same admission, response shapes and limits as the
// native listener, for applications on the standard library, chi, echo or gin with their own
// TLS and authentication. The caller's identity comes from [Config.RequestGate], which runs
// first, as on the native listener (its own responses served as they are, 500 when it fails,
// 504 past RequestGateTimeout), or else from the request context, where the application's
// middleware puts it with [fastmcp.WithIdentity]; never from a header the client chose. A
// gate's identity wins over the middleware's. Connection-level limits (MaxConnections,
// HeadTimeout, IdleTimeout) belong to the http.Server that hosts it: [NewHTTPServer] makes one
// with those of the Config it can apply, and [ConnContext], which lets the handler notice
// every client that goes away.
type Handler struct {
	ep *endpoint
}

// NewHandler returns an http.Handler serving srv under cfg (Addr is ignored, except that a
// loopback Addr keeps the loopback Host check; set AllowedHosts or DisableHostCheck when the
// public name differs).
func NewHandler(srv *fastmcp.Server, cfg Config) (*Handler, error) {
	ep, err := newEndpoint(srv, cfg)
	if err != nil {
		return nil, err
	}
	return &Handler{ep: ep}, nil
}

// Close stops an executor the handler owns, waiting for running work up to ctx.
func (h *Handler) Close(ctx context.Context) error {
	if h.ep.ownExec {
		return h.ep.exec.Close(ctx)
	}
	return nil
}

// Stats returns the handler's counters.
func (h *Handler) Stats() Stats { return h.ep.stats.snapshot() }

// stdHeaders adapts http.Header (a map: it converts to Headers without allocating).
type stdHeaders http.Header

func (s stdHeaders) Values(name string) [][]byte {
	vs := http.Header(s).Values(name)
	if len(vs) == 0 {
		return nil
	}
	out := make([][]byte, len(vs))
	for i, v := range vs {
		out[i] = []byte(v)
	}
	return out
}

// gateHeaders is what a gate sees of a net/http request's header. net/http moves Host out
// of the header map into Request.Host; Values("Host") finds it there, as on the native
// listener.
type gateHeaders struct {
	h    http.Header
	host string
}

func (g *gateHeaders) Values(name string) [][]byte {
	if len(name) == len("Host") && strings.EqualFold(name, "Host") {
		if g.host == "" {
			return nil
		}
		return [][]byte{[]byte(g.host)}
	}
	return stdHeaders(g.h).Values(name)
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ep := h.ep
	if headBytes(r) > ep.cfg.MaxHeaderBytes {
		refuseUnread(w, errHeaderTooLarge)
		return
	}
	hdr := stdHeaders(r.Header)
	var gated *fastmcp.Identity
	if ep.cfg.RequestGate != nil {
		id, served := h.gate(w, r)
		if served {
			return
		}
		gated = id
	}
	if e := ep.admitHead([]byte(r.Method), []byte(r.URL.Path), hdr, []byte(r.Host)); e != nil {
		writeStdError(w, e, nil)
		return
	}
	if len(r.TransferEncoding) > 0 || r.ContentLength < 0 {
		refuseUnread(w, errLengthRequired) // a body of unknown length follows
		return
	}
	// net/http reads a request with neither Content-Length nor Transfer-Encoding as an empty
	// body (ContentLength 0); the header tells it apart from an explicit zero. Every 411 closes
	// the connection, as on the native listener.
	if r.ContentLength == 0 && r.Header["Content-Length"] == nil {
		refuseUnread(w, errLengthRequired)
		return
	}
	if r.ContentLength > int64(ep.cfg.MaxBodyBytes) {
		refuseUnread(w, errBodyTooLarge)
		return
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(ep.cfg.BodyTimeout))
	j := acquireJob(ep)
	j.body = append(j.body[:0], make([]byte, r.ContentLength)...)
	if _, err := io.ReadFull(r.Body, j.body); err != nil {
		var ne interface{ Timeout() bool }
		e := errBadRequest
		if errors.As(err, &ne) && ne.Timeout() {
			ep.stats.bodyTimeouts.Add(1)
			e = errBodyTimeout
		}
		refuseUnread(w, e)
		j.release()
		return
	}
	_ = rc.SetReadDeadline(time.Time{})
	j.identity = gated
	if j.identity == nil {
		j.identity = fastmcp.IdentityFrom(r.Context())
	}
	e, body := ep.admitBody(j, hdr)
	switch {
	case body != nil:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(e.status)
		_, _ = w.Write(body)
		j.release()
		return
	case e != nil:
		writeStdError(w, e, j.msg.ID().Raw())
		j.release()
		return
	}
	if fastmcp.IsStreaming(string(j.msg.Method().Text())) {
		h.listen(w, r, j)
		return
	}
	h.execute(w, r, j)
}

// gate runs the RequestGate on the request's method, path and headers before its body is
// read, with the native listener's semantics: the gate's own response is served as it is, a
// gate that fails, panics or answers an invalid status fails closed (500), one past
// RequestGateTimeout is 504, and an identity it verified reaches the core. It reports
// whether the request was answered.
func (h *Handler) gate(w http.ResponseWriter, r *http.Request) (id *fastmcp.Identity, served bool) {
	path := r.RequestURI // the raw request target, as the native listener gives it
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	// Nothing the gate sees is reused after the handler returns: it needs no copy.
	d, e := h.ep.runGate(GateRequest{Method: []byte(r.Method), Path: []byte(path), Header: &gateHeaders{r.Header, r.Host}}, nil)
	if e != nil {
		writeStdError(w, e, nil)
		return nil, true
	}
	if g := d.Response; g != nil {
		wh := w.Header()
		if g.ContentType != "" {
			wh.Set("Content-Type", g.ContentType)
		} else {
			wh["Content-Type"] = nil // no sniffed type: the native listener sends none either
		}
		for k, v := range g.Header {
			wh.Set(k, v)
		}
		w.WriteHeader(g.Status)
		_, _ = w.Write(g.Body)
		return nil, true
	}
	return d.Identity, false
}

// refuseUnread answers a request whose body is not (or not wholly) read, and closes the
// connection. Connection: close, set before the response is written, is what keeps net/http
// from reading up to 256 KiB of the unread body (to reuse the connection) before it sends
// the response: a client then gets its 411, 413 or 431 at once, as from the native listener.
func refuseUnread(w http.ResponseWriter, e *httpError) {
	w.Header().Set("Connection", "close")
	writeStdError(w, e, nil)
}

// headBytes is the size of the request head as net/http parsed it: the request line, one
// "Name: value" line per header value (Host included, which net/http keeps apart) and the
// blank line. net/http itself refuses only heads past its http.Server's MaxHeaderBytes (1 MiB
// by default) plus 4 KiB of slack, so the handler checks Config.MaxHeaderBytes itself,
// whatever server it is mounted in.
func headBytes(r *http.Request) int {
	n := len(r.Method) + len(r.RequestURI) + len(r.Proto) + len("  \r\n\r\n")
	if r.Host != "" {
		n += len("Host: \r\n") + len(r.Host)
	}
	for name, values := range r.Header {
		for _, v := range values {
			n += len(name) + len(v) + len(": \r\n")
		}
	}
	return n
}

func writeStdError(w http.ResponseWriter, e *httpError, id []byte) {
	if e.allow {
		w.Header().Set("Allow", http.MethodPost)
	}
	if e.noBody {
		w.WriteHeader(e.status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.status)
	_, _ = w.Write(e.appendBody(nil, id))
}

func (h *Handler) execute(w http.ResponseWriter, r *http.Request, j *job) {
	ep := h.ep
	ep.stats.inFlight.Add(1)
	defer ep.stats.inFlight.Add(-1)
	// The job's owner context ends when the client goes away (net/http cancels r.Context())
	// or the request times out: the executor then drops or cancels the job.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	if err := j.submit(ctx, zeroKey); err != nil {
		writeStdError(w, submitError(err), j.msg.ID().Raw())
		j.release()
		return
	}
	defer j.release()
	// One timer for the request's deadline and, when the server gave the connection
	// (ConnContext), the probes for a client gone behind bytes net/http's watch stopped at.
	peer := newPeerProbe(r.Context())
	var wake wakeup
	defer wake.stop()
	fired := wake.start(ep.cfg.RequestTimeout, peer != nil)
	var sw *sse.Writer
	rc := http.NewResponseController(w)
	id := j.msg.ID().Raw()
	done := j.awaitDone()
	for {
		select {
		case <-r.Context().Done(): // the client went away: the executor drops the job, no reply
			ep.stats.disconnects.Add(1)
			return
		case <-done:
			ok := j.completed() && j.reply != nil
			switch {
			case sw != nil && ok:
				_ = sw.WriteEvent(j.reply)
			case sw != nil:
				if e := outcomeError(j.result); !e.noBody {
					_ = sw.WriteEvent(e.appendBody(nil, id))
				}
			case ok:
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(replyStatus(fastmcp.Reply{Body: j.reply, Err: j.rerr}))
				_, _ = w.Write(j.reply)
			default:
				writeStdError(w, outcomeError(j.result), id)
			}
			return
		case note := <-j.notes:
			if sw == nil {
				setStdStreamHeaders(w.Header())
				w.WriteHeader(http.StatusOK)
				sw, _ = sse.NewWriter(flushWriter{w, rc}, rc, sse.Config{WriteTimeout: ep.cfg.WriteTimeout})
			}
			err := sw.WriteEvent(note)
			j.ack <- err
			if err != nil {
				cancel()
			}
		case <-fired:
			if !wake.expired() {
				if peer != nil && peer.gone() { // the executor drops the job when cancel runs
					ep.stats.disconnects.Add(1)
					return
				}
				continue
			}
			cancel()
			ep.stats.reqTimeouts.Add(1)
			if sw != nil {
				_ = sw.WriteEvent(errRequestTimeout.appendBody(nil, id))
			} else {
				writeStdError(w, errRequestTimeout, id)
			}
			return
		}
	}
}

// listen serves a listen stream: its head goes out with the acknowledgement, and a listen
// the core refuses first gets an ordinary JSON error response (see Server.runListen).
func (h *Handler) listen(w http.ResponseWriter, r *http.Request, j *job) {
	ep := h.ep
	defer j.release()
	release, err := ep.exec.Slots().Acquire(r.Context())
	if err != nil {
		writeStdError(w, errSubscriptions, j.msg.ID().Raw())
		return
	}
	defer release()
	ep.stats.openStreams.Add(1)
	defer ep.stats.openStreams.Add(-1)
	rc := http.NewResponseController(w)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	sink := &streamSink{j: j, cancel: cancel, open: func() (*sse.Writer, error) {
		setStdStreamHeaders(w.Header())
		w.WriteHeader(http.StatusOK)
		return sse.NewWriter(flushWriter{w, rc}, rc, ep.sseConfig())
	}}
	defer sink.stop()
	if j.identity != nil {
		ctx = fastmcp.WithIdentity(ctx, j.identity)
	}
	reply := ep.srv.Handle(ctx, &j.msg, sink, nil)
	switch {
	case reply.Body == nil || ctx.Err() != nil:
	case sink.w == nil:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(replyStatus(reply))
		_, _ = w.Write(reply.Body)
	default:
		_ = sink.w.WriteEvent(reply.Body)
	}
}

func setStdStreamHeaders(h http.Header) {
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
}

// flushWriter flushes the response after every write, so each event reaches the client.
type flushWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func (f flushWriter) Write(p []byte) (int, error) { return f.w.Write(p) }
func (f flushWriter) Flush() error                { return f.rc.Flush() }
