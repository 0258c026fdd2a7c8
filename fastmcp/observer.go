package fastmcp

import (
	"context"
	"time"

	"github.com/fastmcp-go/fastmcp/decode"
)

// Observer watches the requests a [Server] serves, for metrics, traces and access logs
// (package observe implements it with Prometheus, OpenTelemetry and log/slog). Set it as
// [Config.Observer]; with none, Handle pays one nil check.
//
// Every label an Observer is given is bounded: methods, tool and prompt names come from
// fixed tables or from the catalog, never from the request, and an unknown one is
// [OtherLabel]; a label set is interned ([RequestInfo.Labels]). Both methods are called on
// the goroutine that serves the request, may be called concurrently for different
// requests, and must not block. A panic in them is recovered and logged; the request is
// served all the same.
type Observer interface {
	// RequestStart is called before a request is served. The context it returns is the one
	// the request is served with (a tracer puts its span there); return ctx to change
	// nothing.
	RequestStart(ctx context.Context, info RequestInfo) context.Context
	// RequestEnd is called once the reply is ready (for subscriptions/listen, once the
	// stream ended), with the context RequestStart returned.
	RequestEnd(ctx context.Context, info RequestInfo, out RequestOutcome)
}

// OtherLabel stands for a method, tool, prompt, protocol version, network transport or error
// code outside the bounded sets an [Observer] labels with.
const OtherLabel = "_other"

// ToolErrorLabel is the error type of a tools/call answered with a result whose isError is
// true, as the OpenTelemetry MCP conventions name it.
const ToolErrorLabel = "tool_error"

// Network transports, as OpenTelemetry's network.transport names them.
const (
	// NetworkTCP is Streamable HTTP.
	NetworkTCP = "tcp"
	// NetworkPipe is stdio.
	NetworkPipe = "pipe"
)

// NetworkNamer is implemented by the [Sink] a transport passes with a request to tell an
// [Observer] which network transport the request came over ([NetworkTCP], [NetworkPipe]).
type NetworkNamer interface {
	NetworkTransport() string
}

// ReceiveTimer is implemented by the [Sink] of a transport that read the clock when the
// request arrived (the native listener: fasthttp reads it for every request anyway). Its
// answer is [RequestInfo.Start], so a request costs the Observer one clock read, not two,
// and its duration counts the time it waited for admission and a worker. A zero time means
// the transport does not know; the server reads the clock then.
type ReceiveTimer interface {
	ReceivedAt() time.Time
}

// RequestInfo describes a request to an [Observer]. Its byte slices are borrowed from the
// message: they are valid until RequestEnd returns.
type RequestInfo struct {
	// Labels are the request's labels, never nil in what the server passes: the same
	// pointer for every request of the same labels, so an Observer may key a cache by it.
	*Labels
	// Start is when the request arrived, as the sink's [ReceiveTimer] tells it, or else when
	// the server began serving it.
	Start time.Time

	// msg is the request, read only by the accessors below: a metrics observer never asks
	// for the id or the trace context, so it is not made to pay for them, and the
	// RequestInfo copied into every Observer call stays small enough for registers.
	msg *decode.Message
}

// ID returns the JSON-RPC id literal (nil for a RequestInfo not made by the server).
func (i *RequestInfo) ID() []byte {
	if i.msg == nil {
		return nil
	}
	return i.msg.ID().Raw()
}

// TraceParent returns params._meta.traceparent, unvalidated (nil when absent, or not a
// plain string).
func (i *RequestInfo) TraceParent() []byte {
	if i.msg == nil {
		return nil
	}
	return i.msg.TraceParent().Text()
}

// TraceState returns params._meta.tracestate, unvalidated, like [RequestInfo.TraceParent].
func (i *RequestInfo) TraceState() []byte {
	if i.msg == nil {
		return nil
	}
	return i.msg.TraceState().Text()
}

// RequestOutcome is how a request ended.
type RequestOutcome struct {
	// Duration is the time from Start to the reply.
	Duration time.Duration
	// Err is the JSON-RPC error of the reply, nil for a result or a cancelled request.
	Err *Error
	// ErrorType is Err's code in decimal (such as "-32602"), [OtherLabel] for a code outside
	// the table of [Code], [ToolErrorLabel] for a tool result with isError, empty otherwise.
	ErrorType string
	// Cancelled reports that nothing was answered: the request's context ended.
	Cancelled bool
	// Rerun reports that nothing was answered because the transport serves the request
	// again where it can wait for the client ([Reply.Rerun]): the request will be observed
	// again, so a count should skip this attempt.
	Rerun bool
}

// observation is a request an Observer watches, from startObserving to endObserving.
type observation struct {
	ctx  context.Context // the one RequestStart returned, which the request is served with
	info RequestInfo
	pre  resolved
}

// startObserving labels m, served in dialect, and tells the Observer it starts, filling o.
func (s *Server) startObserving(o *observation, ctx context.Context, m *decode.Message, sink Sink, dialect Dialect) {
	s.label(&o.info, &o.pre, m, sink, dialect)
	o.ctx = s.observeStart(ctx, o.info)
}

// endObserving tells the Observer how the request ended: reply.
func (s *Server) endObserving(o *observation, reply Reply) {
	// Since reads only the monotonic clock: half the cost of a second time.Now.
	out := RequestOutcome{Duration: time.Since(o.info.Start), Err: reply.Err, Cancelled: reply.Body == nil && reply.Err == nil && !reply.Rerun, Rerun: reply.Rerun}
	switch {
	case reply.Err != nil:
		out.ErrorType = ErrorLabel(reply.Err.Code)
	case reply.ToolError:
		out.ErrorType = ToolErrorLabel
	}
	s.observeEnd(o.ctx, o.info, out)
}

func (s *Server) observeStart(ctx context.Context, info RequestInfo) (next context.Context) {
	next = ctx
	defer s.recoverObserver("RequestStart")
	return s.cfg.Observer.RequestStart(ctx, info)
}

func (s *Server) observeEnd(ctx context.Context, info RequestInfo, out RequestOutcome) {
	defer s.recoverObserver("RequestEnd")
	s.cfg.Observer.RequestEnd(ctx, info, out)
}

// recoverObserver keeps a panicking Observer from taking the request, or the process, down.
func (s *Server) recoverObserver(where string) {
	if v := recover(); v != nil {
		s.cfg.Logger.Error("fastmcp: Observer panicked", "in", where, "panic", v)
	}
}

// resolved is what labelling a request looked up in the catalog, handed to the core so that
// it serves the request from the same snapshot without looking the tool up again.
type resolved struct {
	cat  *catalog
	tool *toolEntry
}

// adopt gives r what labelling resolved, if anything.
func (p resolved) adopt(r *Request) {
	if p.cat != nil {
		r.cat, r.tool = p.cat, p.tool
	}
}

// label labels m, served in dialect, for an Observer, into info; pre is what it looked up
// in the catalog. An initialize-era dialect names its version, a 2026-07-28 request the
// version of its _meta.
func (s *Server) label(info *RequestInfo, pre *resolved, m *decode.Message, sink Sink, dialect Dialect) {
	info.msg = m
	n := 0
	if nn, ok := sink.(NetworkNamer); ok {
		n = networkIndex(nn.NetworkTransport())
	}
	if r, ok := sink.(ReceiveTimer); ok {
		info.Start = r.ReceivedAt()
	}
	if info.Start.IsZero() {
		info.Start = observerNow() // not the s.now test hook: spans are timestamped with it
	}
	v := 0
	if dialect.Legacy() {
		v = versionIndex(dialect.Version())
	} else if t := m.ProtocolVersionText(); t != nil || m.ProtocolVersion().Present() {
		// A version that is present is served or _other: an empty or non-string one too.
		if v = versionIndex(t); v == 0 {
			v = len(versionLabels) - 1
		}
	}
	method := methodIndex(m.MethodText())
	switch method {
	case methodIndexToolsCall:
		pre.cat = s.catalog.Load()
		if pre.tool = pre.cat.tools[string(m.NameText())]; pre.tool != nil {
			info.Labels = pre.tool.labels.get(MethodToolsCall, pre.tool.name, "", v, n)
			return
		}
		info.Labels = s.methodLabels[method].get(MethodToolsCall, OtherLabel, "", v, n)
	case methodIndexPromptsGet:
		if p := s.catalog.Load().prompts[string(m.NameText())]; p != nil {
			info.Labels = p.labels.get(MethodPromptsGet, "", p.name, v, n)
			return
		}
		info.Labels = s.methodLabels[method].get(MethodPromptsGet, "", OtherLabel, v, n)
	default:
		info.Labels = s.methodLabels[method].get(methodLabels[method], "", "", v, n)
	}
}
