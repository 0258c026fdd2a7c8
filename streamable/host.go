package streamable

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/sse"
)

// Endpoint is the MCP endpoint without a host: the admission, limits, execution and response
// shapes of the native listener, for a host that parses HTTP itself (see "Other hosts" in the
// package doc). [Endpoint.Prepare] admits a request, [Endpoint.Execute] runs it, and
// [Endpoint.Handle] does both. The net/http adapter ([NewHandler]) is built on it. Its
// methods are safe for concurrent use.
type Endpoint struct {
	ep *endpoint
}

// NewEndpoint returns the endpoint serving srv under cfg; invalid configuration is an error
// wrapping [ErrInvalidConfig]. The connections (their number, the head's arrival, idle
// keep-alive connections: a [ListenerConfig]'s concerns) are the host's to bound; the Host
// must be a loopback name unless cfg's AllowedHosts or DisableHostCheck says otherwise.
func NewEndpoint(srv *fastmcp.Server, cfg Config) (*Endpoint, error) {
	ep, err := newEndpoint(srv, cfg, true)
	if err != nil {
		return nil, err
	}
	return &Endpoint{ep: ep}, nil
}

// Close stops an executor the endpoint owns, waiting for running work up to ctx; an injected
// executor keeps running. It does not end listen streams: the core's CloseSubscriptions does.
func (e *Endpoint) Close(ctx context.Context) error { return e.ep.close(ctx) }

// Stats returns the endpoint's counters.
func (e *Endpoint) Stats() Stats { return e.ep.stats.snapshot() }

func (ep *endpoint) close(ctx context.Context) error {
	ep.stopSessions()
	if ep.ownExec {
		return ep.exec.Close(ctx)
	}
	return nil
}

// Request is a request as its host read the head: what [Endpoint.Prepare] needs to admit it.
// Its slices need stay valid only until Prepare returns (a [RequestGate] sees copies).
type Request struct {
	// Method and Path are the request's method and the path the host routes on: decoded,
	// without the query, an absolute-form target's path. The gate sees the same path.
	Method, Path []byte
	// Host is the authority the request names: an absolute-form target's, else the Host
	// header's; empty when there is none.
	Host []byte
	// Header gives the header fields. Admission asks only for the fields it checks; a
	// RequestGate may ask for any, Host included, and may read them after Prepare returned
	// (past its RequestGateTimeout), so with a gate Header must stay valid until the gate
	// returns.
	Header Headers
	// HeadBytes is the size of the head as received, request line to the blank line, or 0
	// when the host does not know it; past MaxHeaderBytes the request is refused with 431.
	HeadBytes int
	// ContentLength is the Content-Length, or -1 when the request sent none (411).
	ContentLength int64
	// TransferEncoding reports that the request declared a Transfer-Encoding (411).
	TransferEncoding bool
	// Body is the body, when the host has read it already (its length must be
	// ContentLength); when BodyReader is set, Prepare reads ContentLength bytes from it
	// instead, with BodyDeadline, if set, bounding the read by BodyTimeout (408 past it).
	Body         []byte
	BodyReader   io.Reader
	BodyDeadline interface{ SetReadDeadline(time.Time) error }
	// Identity is the caller the host's own authentication verified, or nil. A RequestGate's
	// identity wins. Never derive it from a header the client chose.
	Identity *fastmcp.Identity
	// Peer, if set, is asked every 50 ms while the request runs whether its client went away;
	// yes cancels the work. Hosts that cancel Execute's context on a disconnect need none.
	Peer Peer

	// gated is the gate's decision when the host ran the gate on the head already (the
	// fasthttp mount's HeaderReceived); bodySkipped that the host then kept the body unread.
	gated       *gateResult
	bodySkipped bool
}

// Peer tells whether a request's client has gone away (closed its connection).
type Peer interface {
	Gone() bool
}

// Response is an answer for the host to send as it is.
type Response struct {
	// Status is the HTTP status; 0 means send nothing (the client went away, or Execute
	// answered on the event stream): close the connection unless Streamed.
	Status int
	// ContentType is the Content-Type; empty means none (a host must not add one).
	ContentType string
	// Header holds further header fields (Allow, or a gate's own). It may be shared: do not
	// modify it.
	Header map[string]string
	// Body is the body. A response of Execute keeps it valid until [Prepared.Release].
	Body []byte
	// Close asks the host to close the connection after the response: the request's body was
	// not read, or not wholly.
	Close bool
	// Streamed reports that Execute answered through [Streamer.OpenStream]: the event
	// stream's last event has been written, nothing is left to send.
	Streamed bool

	refused *httpError // the transport's error it carries, for the refusal counts
}

// Prepared is an admitted request, for [Endpoint.Execute]. It holds the request's body and
// decoded message until Release.
type Prepared struct {
	j    *job
	peer Peer
	verb *sessionVerb // a session's GET or DELETE (Config.LegacySessions), instead of j
}

// Release lets go of the request, after Execute's response has been sent. The zero Prepared
// releases nothing.
func (p Prepared) Release() {
	if p.j != nil {
		p.j.release()
	}
}

// Streamer is how Execute answers with an event stream: for a request whose handler reports
// progress or logs, and for subscriptions/listen once acknowledged.
type Streamer interface {
	// OpenStream sends the head of an event stream, status 200 with the header fields
	// [StreamHeader] returns (and any the host adds), and returns where its events go: w, which
	// Execute flushes after each event when it has a Flush() error method, and d, which gets
	// a write deadline of WriteTimeout before each event (nil when the host cannot set one:
	// its own bound then applies). Execute calls it at most once, on the goroutine it runs on.
	OpenStream() (w io.Writer, d sse.DeadlineSetter, err error)
}

// ResponseWriter is a host's response, for [Endpoint.Handle].
type ResponseWriter interface {
	Streamer
	// WriteResponse sends a whole response; r.Body is valid only during the call.
	WriteResponse(r Response) error
}

var allowPost = map[string]string{"Allow": http.MethodPost}

// errorResponse is the response of a transport error, with id echoed (nil for null).
func errorResponse(e *httpError, id []byte) Response {
	r := Response{Status: e.status, refused: e}
	if e.allow {
		r.Header = allowPost
	}
	if !e.noBody {
		r.ContentType = "application/json"
		r.Body = e.appendBody(nil, id)
	}
	return r
}

// refusal is errorResponse for a request whose body is not (wholly) read: the connection
// closes, which also keeps a host such as net/http from reading the rest before it answers.
func refusal(e *httpError) Response {
	r := errorResponse(e, nil)
	r.Close = true
	return r
}

// Prepare admits r in the order of the package doc: the head limit (431), the RequestGate
// if configured (its own response, 500 or 504), method, path, Origin, Host, media types,
// the framing (411 for a Transfer-Encoding or no Content-Length, 413 past MaxBodyBytes,
// before any of the body is read), then the body (400 when it cannot be read, 408 past
// BodyTimeout), its JSON and envelope, and the mirrored headers. ok reports a request to
// Execute; otherwise resp is the answer, its body the host's to keep.
func (e *Endpoint) Prepare(r *Request) (p Prepared, resp Response, ok bool) {
	return e.ep.prepare(r)
}

func (ep *endpoint) prepareUncounted(r *Request) (Prepared, Response, bool) {
	if r.HeadBytes > ep.cfg.MaxHeaderBytes {
		return Prepared{}, refusal(errHeaderTooLarge), false
	}
	identity := r.Identity
	if ep.cfg.RequestGate != nil {
		g := r.gated
		if g == nil {
			q, ok := ep.quickGate(GateRequest{Method: r.Method, Path: r.Path, Header: r.Header})
			if !ok {
				// The RequestGate may outlive Prepare (past its timeout): it reads copies.
				buf := make([]byte, 0, len(r.Method)+len(r.Path))
				buf = append(append(buf, r.Method...), r.Path...)
				q = ep.runGate(GateRequest{Method: buf[:len(r.Method):len(r.Method)], Path: buf[len(r.Method):], Header: r.Header}, nil)
			}
			g = &q
		}
		if g.answers() {
			// Answered from the head: a declared body is not read, and the connection
			// closes so that it is never read as a request.
			resp := g.response()
			resp.Close = r.bodySkipped || r.ContentLength > 0 || r.TransferEncoding
			return Prepared{}, resp, false
		}
		if g.d.Identity != nil {
			identity = g.d.Identity
		}
	}
	if v, e, ok := ep.admitSessionVerb(r.Method, r.Path, r.Header, r.Host, principalOf(identity)); ok {
		if e != nil {
			return Prepared{}, errorResponse(e, nil), false
		}
		pv := new(sessionVerb) // only here: &v would move v to the heap on every request
		*pv = v
		return Prepared{verb: pv}, Response{}, true
	}
	if e := ep.admitHead(r.Method, r.Path, r.Header, r.Host); e != nil {
		return Prepared{}, errorResponse(e, nil), false
	}
	switch {
	case r.TransferEncoding || r.ContentLength < 0:
		return Prepared{}, refusal(errLengthRequired), false // the framing of what follows is unknown
	case r.ContentLength > int64(ep.cfg.MaxBodyBytes):
		return Prepared{}, refusal(errBodyTooLarge), false
	}
	j := acquireJob(ep)
	if r.BodyReader == nil {
		if int64(len(r.Body)) != r.ContentLength {
			j.release()
			return Prepared{}, refusal(errBadRequest), false
		}
		j.body = append(j.body[:0], r.Body...)
	} else if e := ep.readBody(j, r); e != nil {
		j.release()
		return Prepared{}, refusal(e), false
	}
	j.identity = identity
	e, body := ep.admitBody(j, r.Header)
	switch {
	case body != nil:
		resp := Response{Status: e.status, ContentType: "application/json", Body: append([]byte(nil), body...)}
		j.release()
		return Prepared{}, resp, false
	case e != nil:
		resp := errorResponse(e, j.msg.ID().Raw())
		j.release()
		return Prepared{}, resp, false
	}
	return Prepared{j: j, peer: r.Peer}, Response{}, true
}

// readBody reads the request's ContentLength bytes into j.body within BodyTimeout.
func (ep *endpoint) readBody(j *job, r *Request) *httpError {
	if r.BodyDeadline != nil {
		_ = r.BodyDeadline.SetReadDeadline(time.Now().Add(ep.cfg.BodyTimeout))
		defer func() { _ = r.BodyDeadline.SetReadDeadline(time.Time{}) }()
	}
	j.body = append(j.body[:0], make([]byte, r.ContentLength)...)
	if _, err := io.ReadFull(r.BodyReader, j.body); err != nil {
		var ne interface{ Timeout() bool }
		if errors.As(err, &ne) && ne.Timeout() {
			ep.stats.bodyTimeouts.Add(1)
			return errBodyTimeout
		}
		return errBadRequest
	}
	return nil
}

// Execute runs a prepared request on the executor, within RequestTimeout (504), and returns
// its JSON response; when the handler reports progress or logs first, or for
// subscriptions/listen once acknowledged, it answers on an event stream it opens with s
// instead (the reply, or the timeout error, is the last event; a listen stream ends when
// its subscription does, or when a write fails). It returns when the answer is complete, or
// at once, with no response, when ctx ends (the client went away: the work is cancelled)
// or p's Peer reports the client gone. The response's body is valid until p.Release.
func (e *Endpoint) Execute(ctx context.Context, p Prepared, s Streamer) Response {
	return e.ep.execute(ctx, p, s)
}

// Handle is Prepare, Execute and Release, sending the answer with w.
func (e *Endpoint) Handle(ctx context.Context, r *Request, w ResponseWriter) {
	p, resp, ok := e.ep.prepare(r)
	if ok {
		resp = e.ep.execute(ctx, p, w)
		defer p.Release()
	}
	if resp.Status != 0 {
		_ = w.WriteResponse(resp)
	}
}

func (ep *endpoint) execute(ctx context.Context, p Prepared, s Streamer) Response {
	if p.verb != nil {
		return ep.executeSessionVerb(ctx, *p.verb, s)
	}
	j := p.j
	if j.rules.Streams(j.msg.Method().Text()) {
		return ep.listen(ctx, j, s)
	}
	// The job's owner context ends when the client goes away (the host cancels ctx, or the
	// probe says so): the executor then drops or cancels the job.
	jctx, cancel := context.WithCancel(ctx)
	defer cancel()
	h := &j.std
	*h = streamerHost{ep: ep, s: s, done: ctx.Done(), stop: cancel}
	j.begin()
	key := ep.hostKey()
	ep.register(j, key)
	if err := j.submit(jctx, key); err != nil {
		ep.respond(h, errorResponse(submitError(err), j.msg.ID().Raw()))
		return h.resp
	}
	h.begin(p.peer, &j.probe)
	ep.exchange(j, h) // it streams, if it does, on this goroutine
	return h.resp
}

// streamerHost is the exchange host of Endpoint.Execute: it keeps the response for Execute
// to return, streams through the Streamer on the same goroutine, and learns that the client
// went away from Execute's context and from the Peer, if any, every probeInterval.
type streamerHost struct {
	ep   *endpoint
	s    Streamer
	done <-chan struct{}
	peerWatch
	stop context.CancelFunc
	resp Response
}

func (h *streamerHost) respond(r Response) { h.resp = r }

func (h *streamerHost) abandon() { h.resp = Response{Close: true} }

func (h *streamerHost) stream(pump func(*sse.Writer, error)) bool {
	sw, err := openStream(h.s, h.ep.sseConfig())
	if err != nil {
		h.resp = Response{Close: true}
	} else {
		h.resp = Response{Streamed: true}
	}
	pump(sw, err)
	return false
}

func (h *streamerHost) gone() <-chan struct{} { return h.done }

func (h *streamerHost) cancel() { h.stop() }

var errNoStreamer = errors.New("streamable: the host cannot stream")

// openStream opens the event stream of s.
func openStream(s Streamer, cfg sse.Config) (*sse.Writer, error) {
	if s == nil {
		return nil, errNoStreamer
	}
	w, d, err := s.OpenStream()
	if err != nil {
		return nil, err
	}
	return sse.NewWriter(w, d, cfg)
}

// listen serves a listen stream on the caller's goroutine (see endpoint.serveStream).
func (ep *endpoint) listen(ctx context.Context, j *job, s Streamer) Response {
	release, err := ep.exec.Slots().Acquire(ctx)
	if err != nil {
		ep.refused.count(errSubscriptions)
		return errorResponse(errSubscriptions, j.msg.ID().Raw())
	}
	defer release()
	h := streamerListen{s: s, cfg: ep.sseConfig()}
	if ep.serveStream(ctx, j, &h) {
		return Response{Streamed: true}
	}
	if h.resp.Status != 0 {
		return h.resp
	}
	return Response{Close: true}
}

// streamerListen is a listen stream's host through a Streamer.
type streamerListen struct {
	s    Streamer
	cfg  sse.Config
	resp Response
}

func (h *streamerListen) openStream() (*sse.Writer, error) { return openStream(h.s, h.cfg) }

func (h *streamerListen) respondJSON(status int, body []byte) {
	h.resp = Response{Status: status, ContentType: "application/json", Body: body}
}
