package fastmcp

import (
	"context"
	"sync"

	"github.com/fastmcp-go/fastmcp/decode"
)

// Sink receives the notifications that belong to one request (progress, log messages) or to
// the subscription it opened, in order and one at a time.
type Sink interface {
	// Notify writes one complete JSON-RPC notification and returns once the transport has
	// written it (that is the acknowledgement progress waits for), or an error when it cannot:
	// ctx ended or the connection failed. msg is only valid during the call.
	Notify(ctx context.Context, msg []byte) error
}

// Reply is what a message produced: the JSON-RPC response to send, if any, and the error it
// carries, if any (a transport maps its Code and [Error.Admission] to a status of its own).
type Reply struct {
	// Body is the response, appended to the dst given to the transport's Serve. It is nil
	// for a notification, for a response object, and for a request whose context was
	// cancelled (nothing is sent for a cancelled request).
	Body []byte
	// Err is the error Body carries, nil for a result.
	Err *Error
	// Rerun reports that the request needs to wait for the client (a server-to-client request
	// of an initialize-era dialect) where its sink returned [ErrCannotWait]: nothing was
	// sent; serve the message again where the transport can wait.
	Rerun bool
	// State is the connection's new state after a successful initialize or
	// logging/setLevel, for a transport that keeps one (stdio); nil otherwise.
	State *ConnState
	// ToolError reports a tools/call result with isError true: the tool failed in a way the
	// model sees (an Observer labels it "tool_error").
	ToolError bool
}

var messagePool = sync.Pool{New: func() any { return new(decode.Message) }}

// Dispatch decodes one message and serves it as a 2026-07-28 request: it returns the reply
// bytes, or nil when none is due (a notification, a response object, a cancelled request).
// Notifications that belong to the request go to sink, which may be nil. It is for tests
// and simple embeddings; transports serve decoded messages through package
// fastmcp/transport.
func (s *Server) Dispatch(ctx context.Context, msg []byte, sink Sink) []byte {
	m := messagePool.Get().(*decode.Message)
	defer func() {
		m.Reset()
		messagePool.Put(m)
	}()
	if err := s.decoder.Decode(m, msg); err != nil {
		return appendDecodeError(nil, m, err).Body
	}
	return s.serveMessage(ctx, &modernState, m, sink, nil).Body
}

// modernState is the state of every 2026-07-28 client, which the core only reads.
var modernState = ConnState{Dialect: Modern}

// appendDecodeError appends the reply to a message that failed to decode (err from
// [decode.Decoder.Decode]): an error response that echoes the id only when it was readable and
// within bounds, or nothing for a notification or a response object, which are never
// answered.
func appendDecodeError(dst []byte, m *decode.Message, err error) Reply {
	if k := m.Kind(); k == decode.KindNotification || k == decode.KindResponse {
		return Reply{}
	}
	e := asError(err)
	return Reply{Body: appendError(dst, echoID(m), e), Err: e}
}

// echoID returns the id literal a reply to m carries, nil for null.
func echoID(m *decode.Message) []byte {
	if m.IDEchoable() {
		return m.ID().Raw()
	}
	return nil
}

func appendError(dst, id []byte, e *Error) []byte {
	return decode.AppendError(dst, id, int64(e.Code), e.Message, e.Data, false)
}

// serveMessage serves one decoded message for a client in state st, the one entry point
// of every transport (package fastmcp/transport documents it): a request in st.Dialect,
// observed when an Observer is configured. st is read, never changed.
func (s *Server) serveMessage(ctx context.Context, st *ConnState, m *decode.Message, sink Sink, dst []byte) Reply {
	if s.cfg.Observer != nil && m.Kind() == decode.KindRequest {
		var o observation
		s.startObserving(&o, ctx, m, sink, st.dialect())
		reply := s.route(o.ctx, st, m, sink, dst, o.pre)
		s.endObserving(&o, reply)
		return reply
	}
	return s.route(ctx, st, m, sink, dst, resolved{})
}

// route serves m in its dialect; pre is what an Observer's labelling already looked up.
func (s *Server) route(ctx context.Context, st *ConnState, m *decode.Message, sink Sink, dst []byte, pre resolved) Reply {
	if st.Dialect.Legacy() {
		return s.handleLegacy(ctx, m, st, sink, dst, pre)
	}
	return s.handle(ctx, m, sink, dst, pre)
}

// handle serves m; pre is what an Observer's labelling already looked up of it.
func (s *Server) handle(ctx context.Context, m *decode.Message, sink Sink, dst []byte, pre resolved) Reply {
	switch m.Kind() {
	case decode.KindRequest:
	case decode.KindInvalid:
		return Reply{Body: appendError(dst, echoID(m), ErrInvalidRequest), Err: ErrInvalidRequest}
	default:
		return Reply{} // notifications are the transport's (cancellation); responses are ignored
	}
	method := m.MethodText()
	if body, ok := s.servePrecomputed(m, method, dst); ok {
		return Reply{Body: body}
	}
	r := newRequest(s, m, sink)
	pre.adopt(r)
	body, err := s.serve(ctx, r, method, dst)
	if err != nil {
		if ctx.Err() != nil && isCancellation(err) {
			return Reply{}
		}
		e := asError(err)
		return Reply{Body: appendError(dst, m.ID().Raw(), e), Err: e}
	}
	if body == nil {
		return Reply{}
	}
	return Reply{Body: body, ToolError: r.toolError}
}

// servePrecomputed answers server/discover, and the first page of tools/list when no
// authorization policy filters it, from bytes precomputed per catalog snapshot, without
// allocating. It reports false when the request needs the general path (an error to report,
// a cursor, a cold cache).
func (s *Server) servePrecomputed(m *decode.Message, method, dst []byte) ([]byte, bool) {
	isDiscover := string(method) == MethodDiscover
	if !isDiscover && (string(method) != MethodToolsList || s.cfg.Authorizer != nil || m.Cursor().Present()) {
		return nil, false
	}
	r := Request{msg: m, cat: s.catalog.Load(), logLevel: logOff}
	if r.cat.kinds&kindTool == 0 && !isDiscover || s.checkMeta(&r) != nil {
		return nil, false
	}
	var cached []byte
	if isDiscover {
		cached = s.discoverResult(r.cat)
	} else if v, ok := r.cat.publicPages.Load("tools"); ok {
		cached = v.([]byte)
	}
	if cached == nil {
		return nil, false
	}
	return appendResult(dst, m.ID().Raw(), cached), true
}
