package bustest

import (
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// BenchmarkFanout measures the cost of one event fanned out: a bus publishes a
// resources/updated event and the op ends when every one of streams subscribers on another
// bus of the backend (the same one when open returns a Server's own hub) has it. Events go
// one at a time, so ns/op is the latency of one event end to end; ns/stream divides it by
// the subscribers. open returns a bus closed when b ends.
func BenchmarkFanout(b *testing.B, open func(b *testing.B) fastmcp.EventBus, streams int) {
	pub := open(b)
	sub := open(b)
	var got atomic.Int64
	done := make(chan struct{}, 1)
	for range streams {
		cancel := sub.Subscribe(func(e fastmcp.Event) {
			if e.Kind == fastmcp.ResourceUpdated && got.Add(1)%int64(streams) == 0 {
				select {
				case done <- struct{}{}:
				default:
				}
			}
		})
		b.Cleanup(cancel)
	}
	e := fastmcp.Event{Kind: fastmcp.ResourceUpdated, URI: "file:///bench/" + strconv.Itoa(streams)}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		pub.Publish(e)
		<-done
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(streams), "ns/stream")
}
