package observe

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fastmcp/transport"
)

// BenchmarkObservedDispatch measures a tools/call through the core, served with the native
// listener's sink, with each observation
// serve can set up: none; tracing off (what serve builds without --trace: Chain of a nil
// tracer, which is no Observer at all); Metrics; and a tracer on OpenTelemetry's no-op
// provider (the global one when no SDK is installed). cpu-ns/op is the thread's CPU time,
// which other load on the machine disturbs far less than ns/op.
func BenchmarkObservedDispatch(b *testing.B) {
	body := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{` + meta + `},"name":"echo","arguments":{"text":"hello"}}}`)
	cases := []struct {
		name     string
		observer func(b *testing.B) fastmcp.Observer
	}{
		{"observer=none", func(*testing.B) fastmcp.Observer { return nil }},
		{"observer=tracing-off", func(*testing.B) fastmcp.Observer { return Chain(nil) }},
		{"observer=metrics", func(b *testing.B) fastmcp.Observer {
			m, err := NewMetrics(MetricsConfig{Registerer: prometheus.NewRegistry()})
			if err != nil {
				b.Fatal(err)
			}
			return m
		}},
		{"observer=tracing-noop", func(b *testing.B) fastmcp.Observer {
			t, err := NewTracing(TracingConfig{TracerProvider: noop.NewTracerProvider()})
			if err != nil {
				b.Fatal(err)
			}
			return t
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			ep := transport.For(newCore(b, c.observer(b)))
			modern := fastmcp.ConnState{Dialect: fastmcp.Modern}
			var msg decode.Message
			dst := make([]byte, 0, 1024)
			sink := &tcpSink{received: time.Now()}
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			reportThreadCPU(b, func() {
				for b.Loop() {
					if err := ep.Decoder().Decode(&msg, body); err != nil {
						b.Fatal(err)
					}
					dst = ep.Serve(context.Background(), &modern, &msg, sink, dst[:0]).Body
				}
			})
		})
	}
}

// tcpSink is the sink of the native listener as an Observer sees it: TCP, and the time the
// request arrived, which fasthttp reads for every request anyway (so the benchmark does not
// count that clock read either).
type tcpSink struct{ received time.Time }

func (*tcpSink) Notify(context.Context, []byte) error { return nil }
func (*tcpSink) NetworkTransport() string             { return fastmcp.NetworkTCP }
func (s *tcpSink) ReceivedAt() time.Time              { return s.received }

// BenchmarkMetricsRequestEnd measures recording one request in an existing series.
func BenchmarkMetricsRequestEnd(b *testing.B) {
	m, err := NewMetrics(MetricsConfig{Registerer: prometheus.NewRegistry()})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	info := fastmcp.RequestInfo{Labels: &fastmcp.Labels{Method: "tools/call", Tool: "echo", ProtocolVersion: "2026-07-28", Network: "tcp"}}
	out := fastmcp.RequestOutcome{Duration: time.Millisecond}
	b.ReportAllocs()
	reportThreadCPU(b, func() {
		for b.Loop() {
			m.RequestEnd(ctx, info, out)
		}
	})
}

// BenchmarkMetricsRequestEndParallel records requests of one series from every core at once,
// as a busy server does: the stripes keep the cores off each other's cache lines.
func BenchmarkMetricsRequestEndParallel(b *testing.B) {
	m, err := NewMetrics(MetricsConfig{Registerer: prometheus.NewRegistry()})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	info := fastmcp.RequestInfo{Labels: &fastmcp.Labels{Method: "tools/call", Tool: "echo", ProtocolVersion: "2026-07-28", Network: "tcp"}}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		// Durations that differ in their low bits, as measured ones do: they pick the stripe.
		out := fastmcp.RequestOutcome{Duration: time.Millisecond}
		for pb.Next() {
			out.Duration += 7919 * time.Nanosecond
			m.RequestEnd(ctx, info, out)
		}
	})
}
