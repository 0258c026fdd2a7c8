package streamable

import (
	"context"
	"encoding/binary"
	"net/http"
	"strconv"
	"time"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// HeaderSessionID is the header of an initialize-era session's id.
const HeaderSessionID = "Mcp-Session-Id"

// maxSessionURIBytes bounds a URI a session subscribes to.
const maxSessionURIBytes = 2048

var (
	errSessionRequired = &httpError{status: http.StatusBadRequest, code: fastmcp.CodeInvalidRequest, message: "Bad Request: Mcp-Session-Id header is required"}
	errSessionRepeated = &httpError{status: http.StatusBadRequest, code: fastmcp.CodeInvalidRequest, message: "Bad Request: Mcp-Session-Id header is repeated"}
	errSessionNotFound = &httpError{status: http.StatusNotFound, code: fastmcp.CodeInvalidRequest, message: "Session not found: initialize a new session"}
	errAcceptStream    = &httpError{status: http.StatusNotAcceptable, code: fastmcp.CodeInvalidRequest, message: "Not Acceptable: Accept must list text/event-stream"}

	errSessionSubscriptions = func(max int) *fastmcp.Error {
		return &fastmcp.Error{Code: fastmcp.CodeInvalidParams, Message: "Invalid params: at most " + strconv.Itoa(max) + " resource subscriptions per session"}
	}
	errSessionURI = &fastmcp.Error{Code: fastmcp.CodeInvalidParams, Message: "Invalid params: a subscribed URI is at most " + strconv.Itoa(maxSessionURIBytes) + " bytes"}
)

// sessionEvents marks an initialize served with sessions on: the core then advertises
// listChanged and resources.subscribe, which the session's stream delivers. It never
// records anything (only initialize sees it).
var sessionEvents = fastmcp.NewLegacyEvents()

// sessionRef is an opened session: its topic, expiry, and the log level it starts with.
type sessionRef struct {
	topic  string
	expiry time.Time
	level  fastmcp.LogLevel
}

// sessionID returns the request's Mcp-Session-Id, nil when it has none.
func sessionID(h Headers) ([]byte, *httpError) {
	switch vs := h.Values(HeaderSessionID); len(vs) {
	case 0:
		return nil, nil
	case 1:
		return trimOWS(vs[0]), nil
	default:
		return nil, errSessionRepeated
	}
}

// openSession opens the request's session: 400 without one, 404 for one that is not valid
// for principal, expired, or ended.
func (ep *endpoint) openSession(h Headers, principal string) (fastmcp.ConnState, sessionRef, *httpError) {
	id, e := sessionID(h)
	switch {
	case e != nil:
		return fastmcp.ConnState{}, sessionRef{}, e
	case id == nil:
		return fastmcp.ConnState{}, sessionRef{}, errSessionRequired
	}
	st, expiry, ok := ep.core.OpenSession(id, principal)
	if !ok {
		return st, sessionRef{}, errSessionNotFound
	}
	ref := sessionRef{topic: sessionTopic(id), expiry: expiry, level: st.LogLevel}
	if ep.sessions.isEnded(ref.topic) {
		return st, sessionRef{}, errSessionNotFound
	}
	if l, ok := ep.sessions.levels.get(ref.topic, time.Now()); ok {
		ref.level = fastmcp.LogLevel(l)
		st.LogLevel = ref.level
	}
	return st, ref, nil
}

// classifySession completes an initialize-era request's state with its session: initialize
// opens one (the reply carries its id), any other request must name a valid one.
func (ep *endpoint) classifySession(j *job, h Headers) *httpError {
	if string(j.msg.Method().Text()) == fastmcp.MethodInitialize {
		j.newSession = true
		j.state.Events = sessionEvents
		return nil
	}
	st, ref, e := ep.openSession(h, j.principal())
	if e != nil {
		return e
	}
	st.Dialect = j.state.Dialect // the MCP-Protocol-Version header's, as without sessions
	j.state, j.session = st, ref
	return nil
}

// checkSessionHeader refuses a notification or response whose Mcp-Session-Id names no
// valid session (404); one without the header is served as without sessions.
func (ep *endpoint) checkSessionHeader(j *job, h Headers) *httpError {
	if j.msg.ProtocolVersion().Present() {
		return nil // 2026-07-28 ignores the header
	}
	id, e := sessionID(h)
	if e != nil || id == nil {
		return e
	}
	_, _, e = ep.openSession(h, j.principal())
	return e
}

// afterServe finishes a session request once the core answered it: initialize's reply gets
// the session's id, and resources/subscribe, unsubscribe and logging/setLevel reach the
// replica that holds the session's stream (through the bus), which may refuse a
// subscription past MaxSessionSubscriptions.
func (ep *endpoint) afterServe(j *job, r *fastmcp.Reply) {
	if j.newSession {
		if r.Err != nil || r.State == nil {
			return
		}
		st := *r.State
		st.Events = nil
		id, err := ep.core.SealSession(&st, j.principal(), ep.cfg.SessionTTL)
		if err != nil {
			ep.cfg.Logger.Error("streamable: cannot seal a session id", "err", err)
			return
		}
		j.sessionID = id
		return
	}
	if r.Err != nil || r.Body == nil {
		return
	}
	ref := j.session
	var refusal *fastmcp.Error
	switch method := string(j.msg.Method().Text()); method {
	case fastmcp.MethodResourcesSubscribe, fastmcp.MethodResourcesUnsubscribe:
		uri := decode.Lookup(j.msg.Params().Raw(), "uri")
		u := decode.Unquote(nil, uri.Raw())
		op := byte(opUnsubscribe)
		if method == fastmcp.MethodResourcesSubscribe {
			op = opSubscribe
			if len(u) > maxSessionURIBytes {
				refusal = errSessionURI
				break
			}
		}
		if ep.sessions.request(ref.topic, ref.expiry, ref.level, op, u) == ackLimit {
			refusal = errSessionSubscriptions(ep.cfg.MaxSessionSubscriptions)
		}
	case fastmcp.MethodSetLevel:
		if r.State != nil {
			arg := make([]byte, 9)
			arg[0] = byte(r.State.LogLevel)
			binary.BigEndian.PutUint64(arg[1:], uint64(ref.expiry.UnixMilli()))
			ep.sessions.request(ref.topic, ref.expiry, ref.level, opLevel, arg)
		}
	}
	if refusal != nil {
		r.Body = decode.AppendError(r.Body[:0], j.msg.ID().Raw(), int64(refusal.Code), refusal.Message, nil, false)
		r.Err = refusal
	}
}

// withSession adds the session's id to the response of the initialize that opened it.
func withSession(j *job, r Response) Response {
	if j.sessionID == nil || r.Status != http.StatusOK {
		return r
	}
	h := make(map[string]string, len(r.Header)+1)
	for k, v := range r.Header {
		h[k] = v
	}
	h[HeaderSessionID] = string(j.sessionID)
	r.Header = h
	return r
}

// sessionVerb is a GET or DELETE of a session, admitted.
type sessionVerb struct {
	delete bool
	ref    sessionRef
	lastID string
}

// admitSessionVerb admits a GET or DELETE when sessions are on (ok false otherwise: it is
// refused 405 as without them): the path, Origin and Host as a POST's, Accept listing
// text/event-stream for a GET, and a valid session.
func (ep *endpoint) admitSessionVerb(method, path []byte, h Headers, host []byte, principal string) (v sessionVerb, e *httpError, ok bool) {
	if ep.sessions == nil || string(method) != http.MethodGet && string(method) != http.MethodDelete {
		return v, nil, false
	}
	v.delete = string(method) == http.MethodDelete
	switch {
	case string(path) != ep.cfg.Path:
		return v, errPath, true
	case !ep.hosts.checkOrigin(h.Values("Origin")):
		return v, errOrigin, true
	case !ep.hosts.checkHostHeader(host):
		return v, errHost, true
	case !v.delete && !acceptsStream(h.Values("Accept")):
		return v, errAcceptStream, true
	}
	_, ref, e := ep.openSession(h, principal)
	if e != nil {
		return v, e, true
	}
	v.ref = ref
	if ids := h.Values("Last-Event-ID"); len(ids) == 1 {
		v.lastID = string(trimOWS(ids[0]))
	}
	return v, nil, true
}

// acceptsStream reports whether an Accept header lists text/event-stream.
func acceptsStream(values [][]byte) bool {
	for _, v := range values {
		for _, part := range splitComma(v) {
			if mediaTypeIs(part, streamContentType) || mediaTypeIs(part, "*/*") || mediaTypeIs(part, "text/*") {
				return true
			}
		}
	}
	return false
}

func splitComma(v []byte) [][]byte {
	var out [][]byte
	start := 0
	for i := 0; i <= len(v); i++ {
		if i == len(v) || v[i] == ',' {
			out = append(out, trimOWS(v[start:i]))
			start = i + 1
		}
	}
	return out
}

// endSession serves DELETE: every replica hears that the session ended (its stream
// completes; its id is answered 404 until it would have expired).
func (ep *endpoint) endSession(ref sessionRef) {
	data := make([]byte, 9)
	data[0] = opEnd
	binary.BigEndian.PutUint64(data[1:], uint64(ref.expiry.UnixMilli()))
	ep.sessions.end(ref.topic, ref.expiry)
	ep.sessions.publish(ref.topic, data)
}

// serveSessionStream serves a session's GET stream on the caller's goroutine: the events
// after Last-Event-ID that the session still has (or, when it cannot replay them, a
// warning saying so, then every list_changed and a resources/updated of every
// subscription), then those that arrive, each with its id, until the client goes away,
// ctx ends, the session expires or ends (DELETE), or a newer GET of the session takes the
// stream over. It reports whether the stream opened.
func (ep *endpoint) serveSessionStream(ctx context.Context, v sessionVerb, h listenHost) bool {
	ep.stats.openStreams.Add(1)
	defer ep.stats.openStreams.Add(-1)
	conn := newSessionConn()
	st, pos, reason := ep.sessions.attach(v.ref.topic, v.ref.expiry, v.ref.level, v.lastID, conn)
	defer ep.sessions.detach(st, conn)
	w, err := h.openStream()
	if err != nil {
		return false
	}
	sctx, cancel := context.WithDeadline(ctx, v.ref.expiry)
	defer cancel()
	// A comment first: the head reaches the client now on every host (net/http holds it
	// until the first write), and a client gone already is noticed.
	if w.WriteKeepAlive() != nil {
		return true
	}
	stopKA := w.KeepAlive(cancel)
	defer stopKA()
	lastID := v.lastID
	for {
		if reason != "" {
			for _, msg := range st.resync(lastID, reason) {
				if w.WriteEvent(msg) != nil {
					return true
				}
			}
			reason = ""
		}
		evs, lineage, gap, next := st.since(pos, conn)
		if gap {
			lastID, reason, pos = eventID(lineage, pos), reasonWindow, next-1
			continue
		}
		for _, e := range evs {
			if w.WriteEventID(eventID(lineage, e.S), e.D) != nil {
				return true
			}
			pos = e.S
		}
		select {
		case <-conn.wake:
		case <-conn.end:
			return true
		case <-sctx.Done():
			return true
		}
	}
}
