package client

import (
	"context"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/streamable"
)

// callToolAllocBudget is what one CallTool with raw arguments may allocate on a pooled
// connection (measured 7): the params members, the headers and options that escape, the
// onMessage closure, the response body, the result, and the small strings of the round.
const callToolAllocBudget = 7

func TestCallToolAllocBudget(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	c := connect(t, newQuietServer(t), Config{Era: EraModern})
	ctx := context.Background()
	args := []byte(`{"text":"x"}`)
	_, err := c.CallTool(ctx, "echo", args)
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(200, func() {
		if _, err := c.CallTool(ctx, "echo", args); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("CallTool: %.1f allocs per call", allocs)
	assert.LessOrEqual(t, allocs, float64(callToolAllocBudget))
}

// callToolCancellableAllocBudget is callToolAllocBudget with a context that can end: the
// two allocations of context.AfterFunc (the connection's cancel func is made once, at dial).
const callToolCancellableAllocBudget = callToolAllocBudget + 2

func TestCallToolCancellableAllocBudget(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	c := connect(t, newQuietServer(t), Config{Era: EraModern})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	args := []byte(`{"text":"x"}`)
	_, err := c.CallTool(ctx, "echo", args)
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(200, func() {
		if _, err := c.CallTool(ctx, "echo", args); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("CallTool with a cancellable context: %.1f allocs per call", allocs)
	assert.LessOrEqual(t, allocs, float64(callToolCancellableAllocBudget))
}

// callToolWaitingAllocBudget is callToolAllocBudget when the calls queue for a connection
// (8 callers, one connection): a wait in the pool's queue allocates nothing (measured 7).
const callToolWaitingAllocBudget = callToolAllocBudget

func TestCallToolWaitingAllocBudget(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	c := connect(t, newQuietServer(t), Config{Era: EraModern, PoolSize: 1, PoolMaxRequests: 1 << 30})
	ctx := context.Background()
	args := []byte(`{"text":"x"}`)
	_, err := c.CallTool(ctx, "echo", args)
	require.NoError(t, err)
	const callers, each = 8, 500
	var ms0, ms1 runtime.MemStats
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range callers {
		wg.Go(func() {
			<-start
			for range each {
				if _, err := c.CallTool(ctx, "echo", args); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	runtime.ReadMemStats(&ms0)
	close(start)
	wg.Wait()
	runtime.ReadMemStats(&ms1)
	allocs := float64(ms1.Mallocs-ms0.Mallocs) / (callers * each)
	t.Logf("CallTool, %d callers on one connection: %.1f allocs per call", callers, allocs)
	assert.LessOrEqual(t, allocs, float64(callToolWaitingAllocBudget)+0.5) // +0.5: GC and runtime bookkeeping
}

// BenchmarkCallToolClientOnly: the client's own cost, against a server that allocates nothing.
func BenchmarkCallToolClientOnly(b *testing.B) {
	c := connect(b, newQuietServer(b), Config{Era: EraModern})
	ctx := context.Background()
	args := []byte(`{"text":"x"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.CallTool(ctx, "echo", args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallTool: one tools/call over loopback against our server (its allocations count
// too), µs and allocs per call.
func BenchmarkCallTool(b *testing.B) {
	s := startServer(b, streamable.ListenerConfig{})
	c := connect(b, s.URL(), Config{Era: EraModern})
	ctx := context.Background()
	args := []byte(`{"text":"x"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.CallTool(ctx, "echo", args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallToolParallel: 32 callers sharing one pool of DefaultPoolSize connections.
func BenchmarkCallToolParallel(b *testing.B) {
	s := startServer(b, streamable.ListenerConfig{})
	c := connect(b, s.URL(), Config{Era: EraModern})
	args := []byte(`{"text":"x"}`)
	b.ReportAllocs()
	b.SetParallelism(16) // 2 cores × 16 = 32 callers
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.CallTool(context.Background(), "echo", args); err != nil {
				b.Fatal(err)
			}
		}
	})
}
