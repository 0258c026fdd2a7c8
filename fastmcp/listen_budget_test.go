//go:build !race

package fastmcp

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Budgets of listen streams (not under -race, which multiplies both).
const (
	// fanOutBudget: one list_changed reaches 10,000 idle streams (written through their sinks),
	// in CPU time.
	fanOutBudget = 50 * time.Millisecond
	// streamBudget: what one idle stream holds, heap and goroutine stack, request included.
	streamBudget = 20 << 10
	// listenerBudget: the hub's own state for a stream that opted into list_changed only.
	listenerBudget = 128
	// uriListenerBudget: the same with one resource subscription (wake channel, index entry).
	uriListenerBudget = 384
)

func TestListenFanOutBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 10,000 streams")
	}
	f := openStreams(t, 10_000)
	// The budget is checked on CPU time, the best of several rounds: the wall time on a shared
	// machine measures the neighbours (a round costing less than the budget in CPU time takes
	// less than the budget in wall time on one dedicated core).
	bestWall, bestCPU := time.Duration(1<<63-1), time.Duration(1<<63-1)
	for range 7 {
		cpu := processCPU()
		bestWall = min(bestWall, f.publish(t))
		bestCPU = min(bestCPU, time.Duration(processCPU()-cpu))
	}
	t.Logf("10,000 streams: fan-out %v wall, %v CPU (best of 7); %.0f B heap + %.0f B stack per stream",
		bestWall, bestCPU, f.heapPer, f.stkPer)
	assert.Less(t, bestCPU, fanOutBudget)
	assert.Less(t, f.heapPer+f.stkPer, float64(streamBudget))
}

func TestListenerMemoryBudget(t *testing.T) {
	for _, tc := range []struct {
		name   string
		uris   []string
		budget float64
	}{
		{"list_changed only", nil, listenerBudget},
		{"one resource", []string{"file:///shared"}, uriListenerBudget},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 10_000
			h, _ := newHub(DefaultSubscriptionBuffer, DefaultMaxSubscriptionBytes, nil)
			ls := make([]*listener, n)
			var before, after runtime.MemStats
			runtime.GC() // twice: sync.Pool contents survive one collection
			runtime.GC()
			runtime.ReadMemStats(&before)
			for i := range ls {
				var uris []string
				if tc.uris != nil {
					uris = append(make([]string, 0, len(tc.uris)), tc.uris...)
				}
				ls[i], _ = h.subscribe(0b111, uris, 1)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			per := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / n
			t.Logf("%.0f B per listener", per)
			assert.Less(t, per, tc.budget)
			for _, l := range ls {
				h.unsubscribe(l)
			}
			assert.Empty(t, h.byURI)
		})
	}
}
