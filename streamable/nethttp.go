package streamable

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unsafe"

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

// NewHandler returns an http.Handler serving srv under cfg. The Host must be a loopback name
// unless cfg's AllowedHosts or DisableHostCheck says otherwise: set one when the endpoint is
// reached by a public name.
func NewHandler(srv *fastmcp.Server, cfg Config) (*Handler, error) {
	ep, err := newEndpoint(srv, cfg, true)
	if err != nil {
		return nil, err
	}
	return &Handler{ep: ep}, nil
}

// Close stops an executor the handler owns, waiting for running work up to ctx.
func (h *Handler) Close(ctx context.Context) error {
	h.ep.stopSessions()
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
// listener. It holds only the request, so it converts to Headers without allocating.
type gateHeaders struct{ r *http.Request }

func (g gateHeaders) Values(name string) [][]byte {
	if len(name) == len("Host") && strings.EqualFold(name, "Host") {
		if g.r.Host == "" {
			return nil
		}
		return [][]byte{[]byte(g.r.Host)}
	}
	return stdHeaders(g.r.Header).Values(name)
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ep := h.ep
	sr := &stdResponse{w: w}
	req := Request{
		Method: viewBytes(r.Method), Path: viewBytes(r.URL.Path), Host: viewBytes(r.Host),
		Header:        stdHeaders(r.Header),
		HeadBytes:     headBytes(r),
		ContentLength: r.ContentLength,
		// net/http reads a request with neither Content-Length nor Transfer-Encoding as an
		// empty body (ContentLength 0); the header tells it apart from an explicit zero.
		TransferEncoding: len(r.TransferEncoding) > 0,
		BodyReader:       r.Body,
		BodyDeadline:     sr,
		Identity:         fastmcp.IdentityFrom(r.Context()),
	}
	if r.ContentLength == 0 && r.Header["Content-Length"] == nil {
		req.ContentLength = -1
	}
	if ep.cfg.RequestGate != nil {
		req.Header = gateHeaders{r} // net/http keeps Host out of the map
	}
	// With ConnContext, the probes for a client gone behind bytes net/http's watch stopped at.
	if peer := newPeerProbe(r.Context()); peer != nil {
		req.Peer = peer
	}
	p, resp, ok := ep.prepare(&req)
	if ok {
		resp = ep.execute(r.Context(), p, sr)
		defer p.Release()
	}
	switch {
	case resp.Status != 0:
		_ = sr.WriteResponse(resp)
	case !resp.Streamed:
		sr.abort()
	}
}

// abort closes the connection of a request that gets no response at all (its client went
// away, or withdrew it with notifications/cancelled), where net/http would otherwise send an
// empty 200 when the handler returns. Over HTTP/2, which cannot hijack, the stream is reset.
func (s *stdResponse) abort() {
	if c, _, err := http.NewResponseController(s.w).Hijack(); err == nil {
		_ = c.Close()
		return
	}
	panic(http.ErrAbortHandler)
}

// viewBytes is s as bytes, without a copy: the Request's fields are only read (the gate
// reads copies), and a copy would cost three allocations per request, since whatever of a
// Request leaks (its Header, its BodyReader) leaks the rest for escape analysis.
func viewBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// stdResponse is a net/http response as the Endpoint writes it.
type stdResponse struct {
	w  http.ResponseWriter
	rc *http.ResponseController // set when a stream opens
}

// SetReadDeadline bounds the read of the request's body.
func (s *stdResponse) SetReadDeadline(t time.Time) error {
	return http.NewResponseController(s.w).SetReadDeadline(t)
}

// WriteResponse writes a whole response. A response that closes the connection sets
// Connection: close before it is written, which is what keeps net/http from reading up to
// 256 KiB of an unread body (to reuse the connection) before it sends the response: a
// client gets its 411, 413 or 431 at once, as from the native listener.
func (s *stdResponse) WriteResponse(r Response) error {
	wh := s.w.Header()
	if r.ContentType != "" {
		wh.Set("Content-Type", r.ContentType)
	} else if r.Body != nil {
		wh["Content-Type"] = nil // no sniffed type: the native listener sends none either
	}
	for k, v := range r.Header {
		wh.Set(k, v)
	}
	if r.Close {
		wh.Set("Connection", "close")
		wh.Set("Content-Length", strconv.Itoa(len(r.Body)))
	}
	s.w.WriteHeader(r.Status)
	_, err := s.w.Write(r.Body)
	if r.Close {
		s.closeConn()
	}
	return err
}

// closeConn sends the response written so far and closes the connection: net/http, even
// with Connection: close, reads up to 256 KiB of a body the handler did not read (a refused
// request's, which may never come) before it closes, holding the connection until its read
// timeout. Over HTTP/2, which cannot hijack, the stream ends as usual.
func (s *stdResponse) closeConn() {
	rc := http.NewResponseController(s.w)
	if rc.Flush() != nil {
		return
	}
	if c, _, err := rc.Hijack(); err == nil {
		_ = c.Close()
	}
}

// OpenStream writes the head of an event stream; each event is flushed, and bounded by a
// write deadline.
func (s *stdResponse) OpenStream() (io.Writer, sse.DeadlineSetter, error) {
	h := s.w.Header()
	h.Set("Content-Type", streamContentType)
	for _, f := range streamFields {
		h.Set(f[0], f[1])
	}
	s.w.WriteHeader(http.StatusOK)
	s.rc = http.NewResponseController(s.w)
	return flushWriter{s.w, s.rc}, s.rc, nil
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

// flushWriter flushes the response after every write, so each event reaches the client.
type flushWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func (f flushWriter) Write(p []byte) (int, error) { return f.w.Write(p) }
func (f flushWriter) Flush() error                { return f.rc.Flush() }
