package main

import (
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

// TestStreamsProbe: each reading takes both figures; the heap one is what loadtest sees.
func TestStreamsProbe(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	heaps := []goMemory{{Heap: 1 << 20, Stacks: 64 << 10}, {Heap: 9 << 20, Stacks: 576 << 10}}
	p := &streamsProbe{pid: os.Getpid(), heap: func() (goMemory, error) {
		m := heaps[0]
		heaps = heaps[1:]
		return m, nil
	}}
	v, err := p.read()
	require.NoError(t, err)
	assert.Equal(t, uint64(1<<20+64<<10), v)
	v, err = p.read()
	require.NoError(t, err)
	assert.Equal(t, uint64(9<<20+576<<10), v)
	require.Len(t, p.rssReads, 2)
	assert.Positive(t, p.rssReads[0])

	m := p.perStream(1024)
	assert.Equal(t, float64(8<<10+512), m.Heap, "(8 MiB + 512 KiB) / 1024 streams")
	assert.Empty(t, m.HeapNote)

	// Without a memory endpoint the resident set still answers.
	p = &streamsProbe{pid: os.Getpid(), heap: func() (goMemory, error) { return goMemory{}, errors.New("refused") }}
	v, err = p.read()
	require.NoError(t, err)
	assert.Equal(t, p.rssReads[0], v)
	assert.Equal(t, "refused", p.perStream(10).HeapNote)

	// With neither, loadtest gets an error and reports no memory.
	p = &streamsProbe{pid: -1}
	_, err = p.read()
	assert.Error(t, err)
}

func TestGrowth(t *testing.T) {
	v, note := growth([]uint64{100, 1100}, nil, 10, true, "")
	assert.Equal(t, 100.0, v)
	assert.Empty(t, note)
	_, note = growth([]uint64{100, 90}, nil, 10, true, "")
	assert.Equal(t, "it did not grow (100 B, then 90 B)", note)
	_, note = growth([]uint64{100}, nil, 10, true, "")
	assert.Equal(t, "no streams were measured", note)
	_, note = growth(nil, errors.New("gone"), 10, true, "")
	assert.Equal(t, "gone", note)
	_, note = growth(nil, nil, 10, false, "not local")
	assert.Equal(t, "not local", note)
}

// TestStreamsReport: loadtest's single memory/stream figure gives way to the two labelled
// ones, and the RSS one carries the goal.
func TestStreamsReport(t *testing.T) {
	r := &streamsResult{
		StreamsResult: &loadtest.StreamsResult{Streams: 10, Opened: 10, PerStream: 8 << 10, MemorySource: "the server's memory"},
		PerStream:     memoryPerStream{Heap: 8 << 10, RSS: 12 << 10},
	}
	rep := r.Report()
	_, found := rep.Metric("memory/stream")
	assert.False(t, found)
	heap, _ := rep.Metric(metricHeapPerStream)
	rss, _ := rep.Metric(metricRSSPerStream)
	assert.Equal(t, float64(8<<10), heap)
	assert.Equal(t, float64(12<<10), rss)
	for _, n := range rep.Notes {
		assert.NotContains(t, n, "memory/stream")
	}
	for _, m := range rep.Metrics {
		if m.Name == metricRSSPerStream {
			assert.Equal(t, "goal ≤ 20 KiB: ok", goalMark(&rep, m))
		}
	}

	r.PerStream = memoryPerStream{RSS: 12 << 10, HeapNote: "the server has no memory endpoint"}
	rep = r.Report()
	_, found = rep.Metric(metricHeapPerStream)
	assert.False(t, found)
	assert.Contains(t, rep.Notes, "heap+stacks/stream not measured: the server has no memory endpoint")
}

func TestReadGoMemory(t *testing.T) {
	m := readGoMemory()
	assert.Positive(t, m.Heap)
	assert.Positive(t, m.Stacks)
}
