package fastmcp

import (
	"bytes"
	"context"
	"log/slog"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
)

// recordingObserver keeps what an Observer is told, copying the borrowed bytes.
type recordingObserver struct {
	mu     sync.Mutex
	starts []seenInfo
	ends   []RequestOutcome
	ctxKey any // when set, RequestStart puts it in the context and RequestEnd checks it
	sawKey bool
}

type observerCtxKey struct{}

// seenInfo is a RequestInfo as an Observer read it, the lazy fields copied.
type seenInfo struct {
	RequestInfo
	ID, TraceParent, TraceState string
}

func (o *recordingObserver) RequestStart(ctx context.Context, info RequestInfo) context.Context {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.starts = append(o.starts, seenInfo{ID: string(info.ID()), TraceParent: string(info.TraceParent()), TraceState: string(info.TraceState()), RequestInfo: info})
	o.starts[len(o.starts)-1].msg = nil // borrowed: not kept past the call
	if o.ctxKey != nil {
		return context.WithValue(ctx, observerCtxKey{}, o.ctxKey)
	}
	return ctx
}

func (o *recordingObserver) RequestEnd(ctx context.Context, _ RequestInfo, out RequestOutcome) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.ends = append(o.ends, out)
	o.sawKey = o.ctxKey != nil && ctx.Value(observerCtxKey{}) == o.ctxKey
}

const observedMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`

// TestObserverLabels checks what an Observer is told of literal requests: bounded labels (a
// tool name from the catalog, _other for a name the catalog lacks and for an unknown method),
// the error code, the trace context as sent.
func TestObserverLabels(t *testing.T) {
	tests := []struct {
		name string
		msg  string
		want seenInfo
		err  string
	}{
		{"tool", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + observedMeta + `,"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","tracestate":"k=v"},"name":"echo","arguments":{"text":"x"}}}`,
			seenInfo{RequestInfo: RequestInfo{Labels: &Labels{Method: "tools/call", Tool: "echo", ProtocolVersion: "2026-07-28"}}, ID: "1", TraceParent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", TraceState: "k=v"}, ""},
		{"unknown tool", `{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{` + observedMeta + `},"name":"no-such-tool-1234","arguments":{}}}`,
			seenInfo{RequestInfo: RequestInfo{Labels: &Labels{Method: "tools/call", Tool: OtherLabel, ProtocolVersion: "2026-07-28"}}, ID: `"a"`}, "-32602"},
		{"unknown method", `{"jsonrpc":"2.0","id":2,"method":"x/anything-at-all","params":{` + observedMeta + `}}}`,
			seenInfo{RequestInfo: RequestInfo{Labels: &Labels{Method: OtherLabel, ProtocolVersion: "2026-07-28"}}, ID: "2"}, "-32601"},
		{"unknown version", `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1999-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			seenInfo{RequestInfo: RequestInfo{Labels: &Labels{Method: "tools/list", ProtocolVersion: OtherLabel}}, ID: "3"}, "-32022"},
		{"empty version", `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			seenInfo{RequestInfo: RequestInfo{Labels: &Labels{Method: "tools/list", ProtocolVersion: OtherLabel}}, ID: "6"}, "-32022"},
		{"number version", `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":20260728,"io.modelcontextprotocol/clientCapabilities":{}}}}`,
			seenInfo{RequestInfo: RequestInfo{Labels: &Labels{Method: "tools/list", ProtocolVersion: OtherLabel}}, ID: "7"}, "-32602"},
		{"no version", `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{}}`,
			seenInfo{RequestInfo: RequestInfo{Labels: &Labels{Method: "tools/list"}}, ID: "8"}, "-32602"},
		{"tool error", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{` + observedMeta + `},"name":"fail","arguments":{}}}`,
			seenInfo{RequestInfo: RequestInfo{Labels: &Labels{Method: "tools/call", Tool: "fail", ProtocolVersion: "2026-07-28"}}, ID: "5"}, ToolErrorLabel},
		{"precomputed", `{"jsonrpc":"2.0","id":4,"method":"server/discover","params":{` + observedMeta + `}}}`,
			seenInfo{RequestInfo: RequestInfo{Labels: &Labels{Method: "server/discover", ProtocolVersion: "2026-07-28"}}, ID: "4"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &recordingObserver{}
			s := newTestServer(t, &Config{Observer: o})
			AddTool(s, Tool{Name: "echo"}, func(_ context.Context, _ *Request, in benchEchoArgs) (ToolResult, error) {
				return ToolResult{Text: in.Text}, nil
			})
			AddTool(s, Tool{Name: "fail"}, func(context.Context, *Request, struct{}) (ToolResult, error) {
				return ToolResult{Text: "it failed", IsError: true}, nil
			})
			dispatch(t, s, tt.msg)
			require.Len(t, o.starts, 1)
			require.Len(t, o.ends, 1)
			got := o.starts[0]
			assert.False(t, got.Start.IsZero())
			got.Start = tt.want.Start
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.err, o.ends[0].ErrorType)
			assert.Equal(t, tt.err != "" && tt.err != ToolErrorLabel, o.ends[0].Err != nil)
			assert.False(t, o.ends[0].Cancelled)
		})
	}
}

// networkSink names its transport, as the transports' sinks do.
type networkSink struct{ recordingSink }

func (*networkSink) NetworkTransport() string { return NetworkPipe }

// TestObserverContextAndNetwork checks that the context RequestStart returns is the one the
// handler and RequestEnd see, and that the sink names the network transport.
func TestObserverContextAndNetwork(t *testing.T) {
	o := &recordingObserver{ctxKey: "span"}
	s := newTestServer(t, &Config{Observer: o})
	var seen any
	AddTool(s, Tool{Name: "echo"}, func(ctx context.Context, _ *Request, _ benchEchoArgs) (ToolResult, error) {
		seen = ctx.Value(observerCtxKey{})
		return ToolResult{Text: "ok"}, nil
	})
	reply := s.Dispatch(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+observedMeta+`},"name":"echo","arguments":{"text":"x"}}}`), &networkSink{})
	assert.Contains(t, string(reply), `"result"`)
	assert.Equal(t, "span", seen)
	assert.True(t, o.sawKey)
	require.Len(t, o.starts, 1)
	assert.Equal(t, NetworkPipe, o.starts[0].Network)
}

// TestObserverLegacy checks the labels of an initialize-era request: its dialect's version.
func TestObserverLegacy(t *testing.T) {
	o := &recordingObserver{}
	s := newTestServer(t, &Config{Observer: o})
	var m decode.Message
	require.NoError(t, s.decoder.Decode(&m, []byte(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)))
	r := s.testHandleLegacy(context.Background(), &m, &ConnState{Dialect: Legacy20250618}, nil, nil)
	assert.Equal(t, `{"jsonrpc":"2.0","id":9,"result":{}}`, string(r.Body))
	require.Len(t, o.starts, 1)
	assert.Equal(t, "ping", o.starts[0].Method)
	assert.Equal(t, "2025-06-18", o.starts[0].ProtocolVersion)
}

// TestObserverLabelsInterned checks that requests of one label set share one *Labels, and
// that another tool, version or transport has its own.
func TestObserverLabelsInterned(t *testing.T) {
	o := &recordingObserver{}
	s := newTestServer(t, &Config{Observer: o})
	for _, name := range []string{"a", "b"} {
		AddTool(s, Tool{Name: name}, func(context.Context, *Request, struct{}) (ToolResult, error) { return ToolResult{Text: "ok"}, nil })
	}
	call := func(tool string, sink Sink) {
		s.Dispatch(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+observedMeta+`},"name":"`+tool+`","arguments":{}}}`), sink)
	}
	call("a", nil)
	call("a", nil)
	call("b", nil)
	call("a", &networkSink{})
	dispatch(t, s, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+observedMeta+`}}}`)
	var m decode.Message
	require.NoError(t, s.decoder.Decode(&m, []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a","arguments":{}}}`)))
	s.testHandleLegacy(context.Background(), &m, &ConnState{Dialect: Legacy20251125}, nil, nil)
	require.Len(t, o.starts, 6)
	l := func(i int) *Labels { return o.starts[i].Labels }
	assert.Same(t, l(0), l(1))
	for i := 2; i < 6; i++ {
		assert.NotSame(t, l(0), l(i), i)
	}
	assert.Equal(t, Labels{Method: MethodToolsCall, Tool: "a", ProtocolVersion: Version, Network: NetworkPipe}, *l(3))
	assert.Equal(t, Labels{Method: MethodToolsList, ProtocolVersion: Version}, *l(4))
	assert.Equal(t, Labels{Method: MethodToolsCall, Tool: "a", ProtocolVersion: "2025-11-25"}, *l(5))
}

// TestObserverNotForNotifications checks that only requests are observed.
func TestObserverNotForNotifications(t *testing.T) {
	o := &recordingObserver{}
	s := newTestServer(t, &Config{Observer: o})
	assert.Empty(t, dispatch(t, s, `{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	assert.Empty(t, o.starts)
}

// panickingObserver panics in both methods.
type panickingObserver struct{}

func (panickingObserver) RequestStart(context.Context, RequestInfo) context.Context { panic("start") }
func (panickingObserver) RequestEnd(context.Context, RequestInfo, RequestOutcome)   { panic("end") }

// TestObserverPanicRecovered checks that a panicking Observer neither crashes the process nor
// changes the reply, and is logged.
func TestObserverPanicRecovered(t *testing.T) {
	var log bytes.Buffer
	s := newTestServer(t, &Config{Observer: panickingObserver{}, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	got := dispatch(t, s, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+observedMeta+`}}}`)
	assert.Contains(t, got, `"id":1,"result":`)
	assert.Contains(t, log.String(), "Observer panicked")
	assert.Contains(t, log.String(), "in=RequestStart")
	assert.Contains(t, log.String(), "in=RequestEnd")
}

// TestErrorLabelBounded checks that a handler's own code is not a label of its own.
func TestErrorLabelBounded(t *testing.T) {
	assert.Equal(t, "-32602", ErrorLabel(CodeInvalidParams))
	assert.Equal(t, "-32002", ErrorLabel(CodeResourceNotFound))
	assert.Equal(t, OtherLabel, ErrorLabel(-31999))
	assert.Equal(t, OtherLabel, MethodLabel([]byte("tools/callx")))
}

// TestObserverRerun checks that an attempt answered Reply.Rerun is reported as one, neither
// cancelled nor an error, so that a count can skip it.
func TestObserverRerun(t *testing.T) {
	o := &recordingObserver{}
	s := confirmServer(t, &Config{Observer: o})
	sink := newBridgeSink()
	sink.cannotWait = true
	r := <-handleLegacyAsync(t.Context(), t, s, &ConnState{Dialect: Legacy20251125, LogLevel: LogOff}, sink, callConfirm)
	require.True(t, r.Rerun)
	require.Len(t, o.ends, 1)
	assert.Equal(t, RequestOutcome{Duration: o.ends[0].Duration, Rerun: true}, o.ends[0])
	assert.Equal(t, "confirm", o.starts[0].Tool)
	assert.Equal(t, "2025-11-25", o.starts[0].ProtocolVersion)
}

// TestLabelTablesComplete checks that every dialect's version and every method constant is a
// label of its own, that each index finds its own label, and that an unknown network
// transport is _other.
func TestLabelTablesComplete(t *testing.T) {
	for _, d := range AllDialects() {
		assert.Equal(t, d.Version(), versionLabels[versionIndex(d.Version())])
	}
	for i, l := range methodLabels {
		assert.Equal(t, i, methodIndex([]byte(l)), l)
	}
	for i, l := range versionLabels {
		assert.Equal(t, i, versionIndex(l), l)
	}
	for i, l := range networkLabels {
		assert.Equal(t, i, networkIndex(l), l)
	}
	assert.Equal(t, OtherLabel, networkLabels[networkIndex("quic")])
	assert.Equal(t, OtherLabel, versionLabels[versionIndex("1999-01-01")])
	for _, m := range []string{MethodDiscover, MethodToolsList, MethodToolsCall, MethodPromptsList, MethodPromptsGet,
		MethodResourcesList, MethodResourceTemplates, MethodResourcesRead, MethodComplete, MethodListen,
		MethodInitialize, MethodPing, MethodSetLevel, MethodResourcesSubscribe, MethodResourcesUnsubscribe} {
		assert.Equal(t, m, MethodLabel([]byte(m)))
	}
	for _, c := range []Code{CodeParseError, CodeInvalidRequest, CodeMethodNotFound, CodeInvalidParams, CodeInternalError,
		CodeHeaderMismatch, CodeMissingCapability, CodeUnsupportedVersion, CodeResourceNotFound} {
		assert.Equal(t, strconv.Itoa(int(c)), ErrorLabel(c))
	}
}
