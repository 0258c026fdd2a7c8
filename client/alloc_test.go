package client

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/streamable"
)

// callToolAllocBudget is what one CallTool with raw arguments may allocate on a pooled
// connection (measured 11): the params members, the headers and options that escape, the
// onMessage closure, the response body, the result, and the small strings of the round.
const callToolAllocBudget = 11

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

// BenchmarkCallToolParallel: 32 callers sharing one pool of four connections.
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
