package observe

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/internal/wireschema"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// newTracing returns a Tracing recording to an in-memory exporter.
func newTracing(t *testing.T) (*Tracing, *tracetest.InMemoryExporter) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { require.NoError(t, tp.Shutdown(context.Background())) })
	tr, err := NewTracing(TracingConfig{TracerProvider: tp})
	require.NoError(t, err)
	return tr, exp
}

// TestTracingSpanParentedByMeta serves a literal tools/call over HTTP whose _meta carries a
// traceparent and tracestate: the server span is its child, named and attributed by the
// conventions, and the handler sees it in its context.
func TestTracingSpanParentedByMeta(t *testing.T) {
	tr, exp := newTracing(t)
	core := newCore(t, tr)
	s := startHTTP(t, core, streamable.ListenerConfig{})
	call := `{"jsonrpc":"2.0","id":"req-1","method":"tools/call","params":{` + meta +
		`,"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","tracestate":"vendor=abc,other=1"},"name":"echo","arguments":{"text":"hi"}}}`
	_, body := exchange(t, hostOf(s.URL()), post(s, call, "Mcp-Method: tools/call", "Mcp-Name: echo"))
	wireschema.RequireValid(t, "CallToolResultResponse", []byte(body))

	spans := exp.GetSpans()
	require.Len(t, spans, 1)
	sp := spans[0]
	assert.Equal(t, "tools/call echo", sp.Name)
	assert.Equal(t, trace.SpanKindServer, sp.SpanKind)
	assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", sp.SpanContext.TraceID().String())
	assert.Equal(t, "00f067aa0ba902b7", sp.Parent.SpanID().String())
	assert.True(t, sp.Parent.IsRemote())
	assert.Equal(t, "vendor=abc,other=1", sp.SpanContext.TraceState().String())
	assert.ElementsMatch(t, []attribute.KeyValue{
		AttrMethod.String("tools/call"),
		AttrToolName.String("echo"),
		AttrOperationName.String("execute_tool"),
		AttrProtocolVersion.String("2026-07-28"),
		AttrNetwork.String("tcp"),
		AttrNetworkProtocol.String("http"),
		AttrRequestID.String("req-1"),
	}, sp.Attributes)
	assert.Equal(t, codes.Unset, sp.Status.Code)
}

// TestTracingErrorAndNewTrace checks a request without trace context (a new trace, no
// parent) answered with an error: error.type and the status code on the span.
func TestTracingErrorAndNewTrace(t *testing.T) {
	tr, exp := newTracing(t)
	core := newCore(t, tr)
	reply := core.Dispatch(context.Background(), []byte(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{`+meta+
		`,"traceparent":"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},"name":"not-in-catalog","arguments":{}}}`), nil)
	wireschema.RequireValid(t, "JSONRPCErrorResponse", reply)
	spans := exp.GetSpans()
	require.Len(t, spans, 1)
	sp := spans[0]
	assert.Equal(t, "tools/call _other", sp.Name)
	assert.False(t, sp.Parent.IsValid(), "version ff is refused: a new trace")
	assert.Contains(t, sp.Attributes, AttrErrorType.String("-32602"))
	assert.Contains(t, sp.Attributes, AttrStatusCode.String("-32602"))
	assert.NotContains(t, sp.Attributes, AttrNetwork.String("tcp"), "Dispatch names no transport")
	assert.Equal(t, codes.Error, sp.Status.Code)
}

// TestTracingHandlerSeesSpan checks that the handler's context carries the request's span.
func TestTracingHandlerSeesSpan(t *testing.T) {
	tr, exp := newTracing(t)
	core := newCore(t, tr)
	var seen trace.SpanContext
	core.AddRawTool(fastmcp.Tool{Name: "span", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, _ *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
		seen = trace.SpanContextFromContext(ctx)
		return fastmcp.ToolResult{Text: "ok"}, nil
	})
	core.Dispatch(context.Background(), []byte(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{`+meta+`},"name":"span","arguments":{}}}`), nil)
	spans := exp.GetSpans()
	require.Len(t, spans, 1)
	assert.Equal(t, spans[0].SpanContext.SpanID(), seen.SpanID())
}

func TestNewTracingNeedsProvider(t *testing.T) {
	_, err := NewTracing(TracingConfig{})
	assert.ErrorIs(t, err, ErrInvalidConfig)
}

// SpanTraceContext gives the span in ctx as W3C headers, for a server that calls others on
// the request's behalf: its id becomes their parent; a context without a span gives none.
func TestSpanTraceContext(t *testing.T) {
	tr, _ := newTracing(t)
	sc, ok := RemoteParent([]byte("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"), []byte("vendor=abc"))
	require.True(t, ok)
	ctx, span := tr.tracer.Start(trace.ContextWithRemoteSpanContext(context.Background(), sc), "x")
	defer span.End()
	tp, ts := SpanTraceContext(ctx)
	assert.Equal(t, "00-4bf92f3577b34da6a3ce929d0e0e4736-"+span.SpanContext().SpanID().String()+"-01", tp)
	assert.Equal(t, "vendor=abc", ts)

	tp, ts = SpanTraceContext(context.Background())
	assert.Empty(t, tp)
	assert.Empty(t, ts)
}
