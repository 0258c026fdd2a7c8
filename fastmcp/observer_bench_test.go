package fastmcp

import (
	"context"
	"testing"
	"time"

	"github.com/fastmcp-go/fastmcp/decode"
)

// countingObserver counts requests without keeping anything: the cheapest Observer.
type countingObserver struct{ n int }

func (o *countingObserver) RequestStart(ctx context.Context, _ RequestInfo) context.Context {
	return ctx
}
func (o *countingObserver) RequestEnd(context.Context, RequestInfo, RequestOutcome) { o.n++ }

// tcpSink is the native listener's sink as an Observer sees it: TCP, and the time the
// request arrived, which fasthttp reads for every request anyway.
type tcpSink struct{ receivedSink }

func (*tcpSink) NetworkTransport() string { return NetworkTCP }

// BenchmarkHandleObserved is BenchmarkHandle's tools/call with and without the cheapest
// Observer, served with the native listener's sink: what observation costs the core itself
// (labelling, the clock read at the end, the calls), apart from what an Observer records.
func BenchmarkHandleObserved(b *testing.B) {
	msg := []byte(benchMessages[0].msg)
	for _, c := range []struct {
		name string
		obs  Observer
	}{{"observer=none", nil}, {"observer=counting", &countingObserver{}}} {
		b.Run(c.name, func(b *testing.B) {
			s := newTestServer(b, &Config{Observer: c.obs})
			AddTool(s, Tool{Name: "echo", Description: "Echo the text"}, func(_ context.Context, _ *Request, in benchEchoArgs) (ToolResult, error) {
				return ToolResult{Text: in.Text}, nil
			})
			var m decode.Message
			if err := s.decoder.Decode(&m, msg); err != nil {
				b.Fatal(err)
			}
			sink := &tcpSink{receivedSink{at: time.Now()}}
			dst := make([]byte, 0, 1024)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				r := s.testHandle(ctx, &m, sink, dst[:0])
				if r.Err != nil || r.Body == nil {
					b.Fatalf("reply %s", r.Body)
				}
				dst = r.Body
			}
		})
	}
}
