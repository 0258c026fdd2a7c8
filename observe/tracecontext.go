package observe

import (
	"bytes"
	"context"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// The bounds of the W3C trace context in params._meta, as the seed system validates it.
const (
	// MinTraceParentBytes is the length of a version-00 traceparent.
	MinTraceParentBytes = 55
	// MaxTraceParentBytes bounds a traceparent (future versions may append fields).
	MaxTraceParentBytes = 512
	// MaxTraceStateBytes bounds a tracestate.
	MaxTraceStateBytes = 512
	// MaxTraceStateMembers bounds the list-members of a tracestate.
	MaxTraceStateMembers = 32
)

// RemoteParent returns the span context traceparent and tracestate name, and whether it is
// valid: traceparent 55 to 512 bytes, "vv-<32 hex>-<16 hex>-<2 hex>" in lower case, version
// not ff (a version-00 traceparent exactly 55 bytes, a later one followed by "-" and more),
// trace and parent ids not all zero; tracestate at most 512 bytes and 32 members, and well
// formed. An invalid tracestate is dropped and the traceparent kept, as W3C Trace Context
// asks; an invalid traceparent gives no parent (the request starts a new trace).
func RemoteParent(traceparent, tracestate []byte) (trace.SpanContext, bool) {
	tp := traceparent
	if len(tp) < MinTraceParentBytes || len(tp) > MaxTraceParentBytes || tp[2] != '-' || tp[35] != '-' || tp[52] != '-' {
		return trace.SpanContext{}, false
	}
	version, ok := hexByte(tp[0:2])
	if !ok || version == 0xff || version == 0 && len(tp) != MinTraceParentBytes || version != 0 && len(tp) > MinTraceParentBytes && tp[55] != '-' {
		return trace.SpanContext{}, false
	}
	flags, ok := hexByte(tp[53:55])
	if !ok || !lowerHex(tp[3:35]) || !lowerHex(tp[36:52]) {
		return trace.SpanContext{}, false
	}
	traceID, err := trace.TraceIDFromHex(string(tp[3:35]))
	if err != nil { // all zeros
		return trace.SpanContext{}, false
	}
	spanID, err := trace.SpanIDFromHex(string(tp[36:52]))
	if err != nil {
		return trace.SpanContext{}, false
	}
	cfg := trace.SpanContextConfig{TraceID: traceID, SpanID: spanID, TraceFlags: trace.TraceFlags(flags) & trace.FlagsSampled, Remote: true}
	if len(tracestate) > 0 && len(tracestate) <= MaxTraceStateBytes && bytes.Count(tracestate, []byte(",")) < MaxTraceStateMembers {
		if ts, err := trace.ParseTraceState(string(tracestate)); err == nil {
			cfg.TraceState = ts
		}
	}
	return trace.NewSpanContext(cfg), true
}

// hexByte parses two lower-case hex digits.
func hexByte(b []byte) (byte, bool) {
	hi, ok1 := hexDigit(b[0])
	lo, ok2 := hexDigit(b[1])
	return hi<<4 | lo, ok1 && ok2
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

func lowerHex(b []byte) bool {
	for _, c := range b {
		if _, ok := hexDigit(c); !ok {
			return false
		}
	}
	return true
}

// SpanTraceContext returns the W3C traceparent and tracestate of the span in ctx (the one
// [Tracing] started for the request being served), empty when ctx holds no valid span: a
// server that calls other servers on a request's behalf (the gateway's
// Config.TraceContext) sends it so that their spans are children of this one.
func SpanTraceContext(ctx context.Context) (traceparent, tracestate string) {
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, carrier)
	return carrier.Get("traceparent"), carrier.Get("tracestate")
}
