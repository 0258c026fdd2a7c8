package observe

import (
	"context"
	"fmt"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// TracerName is the instrumentation scope of the spans [Tracing] starts.
const TracerName = "github.com/fastmcp-go/fastmcp/observe"

// The span attributes of the OpenTelemetry MCP conventions that Tracing sets.
const (
	AttrMethod          = attribute.Key("mcp.method.name")
	AttrToolName        = attribute.Key("gen_ai.tool.name")
	AttrPromptName      = attribute.Key("gen_ai.prompt.name")
	AttrOperationName   = attribute.Key("gen_ai.operation.name")
	AttrProtocolVersion = attribute.Key("mcp.protocol.version")
	AttrNetwork         = attribute.Key("network.transport")
	AttrNetworkProtocol = attribute.Key("network.protocol.name")
	AttrRequestID       = attribute.Key("jsonrpc.request.id")
	AttrErrorType       = attribute.Key("error.type")
	AttrStatusCode      = attribute.Key("rpc.response.status_code")
)

// maxRequestIDBytes bounds the jsonrpc.request.id a span carries.
const maxRequestIDBytes = 128

// Tracing is a [fastmcp.Observer] that starts a server span per request, a child of the
// W3C trace context in params._meta when it is valid ([RemoteParent]), named
// "{mcp.method.name} {tool or prompt}" and attributed by the conventions. Handlers see the
// span in their context (trace.SpanFromContext). Tracing is off unless a server is given
// one: it is not free (a span per request).
type Tracing struct {
	tracer trace.Tracer
}

// TracingConfig configures [NewTracing].
type TracingConfig struct {
	// TracerProvider makes the tracer; required (an SDK provider with an exporter, or
	// otel.GetTracerProvider() for the global one).
	TracerProvider trace.TracerProvider
}

// NewTracing returns the tracing Observer.
func NewTracing(cfg TracingConfig) (*Tracing, error) {
	if cfg.TracerProvider == nil {
		return nil, fmt.Errorf("%w: TracingConfig.TracerProvider is nil", ErrInvalidConfig)
	}
	return &Tracing{tracer: cfg.TracerProvider.Tracer(TracerName)}, nil
}

// RequestStart starts the request's span.
func (t *Tracing) RequestStart(ctx context.Context, info fastmcp.RequestInfo) context.Context {
	if sc, ok := RemoteParent(info.TraceParent(), info.TraceState()); ok {
		ctx = trace.ContextWithRemoteSpanContext(ctx, sc)
	}
	name := info.Method
	attrs := make([]attribute.KeyValue, 0, 8)
	attrs = append(attrs, AttrMethod.String(info.Method))
	switch {
	case info.Tool != "":
		name += " " + info.Tool
		attrs = append(attrs, AttrToolName.String(info.Tool), AttrOperationName.String("execute_tool"))
	case info.Prompt != "":
		name += " " + info.Prompt
		attrs = append(attrs, AttrPromptName.String(info.Prompt))
	}
	if info.ProtocolVersion != "" {
		attrs = append(attrs, AttrProtocolVersion.String(info.ProtocolVersion))
	}
	if info.Network != "" {
		attrs = append(attrs, AttrNetwork.String(info.Network))
		if info.Network == fastmcp.NetworkTCP {
			attrs = append(attrs, AttrNetworkProtocol.String("http"))
		}
	}
	if id := requestID(info.ID()); id != "" {
		attrs = append(attrs, AttrRequestID.String(id))
	}
	ctx, _ = t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithTimestamp(info.Start), trace.WithAttributes(attrs...))
	return ctx
}

// RequestEnd ends the span, with the error when the reply is one.
func (t *Tracing) RequestEnd(ctx context.Context, info fastmcp.RequestInfo, out fastmcp.RequestOutcome) {
	span := trace.SpanFromContext(ctx)
	switch {
	case out.Err != nil:
		span.SetAttributes(AttrErrorType.String(out.ErrorType), AttrStatusCode.String(strconv.FormatInt(int64(out.Err.Code), 10)))
		span.SetStatus(codes.Error, out.Err.Message)
	case out.ErrorType != "": // a tool result with isError
		span.SetAttributes(AttrErrorType.String(out.ErrorType))
		span.SetStatus(codes.Error, out.ErrorType)
	}
	span.End(trace.WithTimestamp(info.Start.Add(out.Duration)))
}

// requestID is the id as the conventions show it: a string id unquoted, a number as sent,
// empty for null or one longer than maxRequestIDBytes.
func requestID(raw []byte) string {
	if len(raw) == 0 || len(raw) > maxRequestIDBytes || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		if s, err := strconv.Unquote(string(raw)); err == nil {
			return s
		}
		return ""
	}
	return string(raw)
}
