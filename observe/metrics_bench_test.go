package observe

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// BenchmarkObservedDispatch measures a tools/call through the core, without an Observer and
// with Metrics, to show the instrumentation's cost per request; cpu-ns/op is the thread's CPU
// time, which other load on the machine disturbs far less than ns/op.
func BenchmarkObservedDispatch(b *testing.B) {
	body := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{` + meta + `},"name":"echo","arguments":{"text":"hello"}}}`)
	for _, on := range []bool{false, true} {
		name := "metrics=off"
		if on {
			name = "metrics=on"
		}
		b.Run(name, func(b *testing.B) {
			core := newCore(b, nil)
			if on {
				m, err := NewMetrics(MetricsConfig{Registerer: prometheus.NewRegistry()})
				if err != nil {
					b.Fatal(err)
				}
				core = newCore(b, m)
			}
			var msg decode.Message
			dst := make([]byte, 0, 1024)
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			reportThreadCPU(b, func() {
				for b.Loop() {
					if err := core.Decoder().Decode(&msg, body); err != nil {
						b.Fatal(err)
					}
					dst = core.Handle(context.Background(), &msg, nil, dst[:0]).Body
				}
			})
		})
	}
}

// BenchmarkMetricsRequestEnd measures recording one request in an existing series.
func BenchmarkMetricsRequestEnd(b *testing.B) {
	m, err := NewMetrics(MetricsConfig{Registerer: prometheus.NewRegistry()})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	info := fastmcp.RequestInfo{Method: "tools/call", Tool: "echo", ProtocolVersion: "2026-07-28", Network: "tcp"}
	out := fastmcp.RequestOutcome{Duration: time.Millisecond}
	b.ReportAllocs()
	reportThreadCPU(b, func() {
		for b.Loop() {
			m.RequestEnd(ctx, info, out)
		}
	})
}
