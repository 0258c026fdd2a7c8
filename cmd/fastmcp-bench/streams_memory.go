package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

// Metric names of the two memory figures of sse-keepalive.
const (
	metricHeapPerStream = "heap+stacks/stream"
	metricRSSPerStream  = "RSS/stream"
)

// streamsProbe reads a server's memory each time loadtest.Streams asks (before the streams
// open, then once they are open) in two ways: the Go heap and stacks in use after a GC, from
// the server's runtime (what the streams' objects and goroutines hold), and the process's
// resident set from /proc (what the OS charges: the runtime's spare spans and metadata too,
// about half as much again).
type streamsProbe struct {
	heap func() (goMemory, error) // nil when the server has no memory endpoint
	pid  int                      // 0 when it is not a local process

	heapReads, rssReads []uint64
	heapErr, rssErr     error
}

// read is StreamsConfig.Memory. It returns the heap figure where there is one (loadtest's own
// figure, which Report replaces by both), failing only when neither source answers.
func (p *streamsProbe) read() (uint64, error) {
	var v uint64
	ok := false
	if p.pid > 0 && p.rssErr == nil {
		// The resident set first: the GC of the heap reading must not run in between.
		if rss, err := loadtest.ProcessRSS(p.pid); err != nil {
			p.rssErr = err
		} else {
			p.rssReads = append(p.rssReads, rss)
			v, ok = rss, true
		}
	}
	if p.heap != nil && p.heapErr == nil {
		if m, err := p.heap(); err != nil {
			p.heapErr = err
		} else {
			p.heapReads = append(p.heapReads, m.Heap+m.Stacks)
			v, ok = m.Heap+m.Stacks, true
		}
	}
	if !ok {
		return 0, errors.Join(errors.New("no memory reading"), p.heapErr, p.rssErr)
	}
	return v, nil
}

// memoryPerStream is what one open listen stream cost the server, by each measure (zero when
// not measured, with the reason in the note).
type memoryPerStream struct {
	Heap     float64 `json:"heap_stacks_bytes,omitempty"`
	RSS      float64 `json:"rss_bytes,omitempty"`
	HeapNote string  `json:"heap_stacks_note,omitempty"`
	RSSNote  string  `json:"rss_note,omitempty"`
}

func (p *streamsProbe) perStream(opened int64) memoryPerStream {
	var m memoryPerStream
	m.Heap, m.HeapNote = growth(p.heapReads, p.heapErr, opened, p.heap != nil, "the server has no memory endpoint")
	m.RSS, m.RSSNote = growth(p.rssReads, p.rssErr, opened, p.pid > 0, "the server is not a local process (--pid)")
	return m
}

// growth is the difference of the two readings per stream.
func growth(reads []uint64, err error, opened int64, source bool, missing string) (float64, string) {
	switch {
	case !source:
		return 0, missing
	case err != nil:
		return 0, err.Error()
	case len(reads) != 2 || opened == 0:
		return 0, "no streams were measured"
	case reads[1] <= reads[0]:
		return 0, fmt.Sprintf("it did not grow (%d B, then %d B)", reads[0], reads[1])
	}
	return float64(reads[1]-reads[0]) / float64(opened), ""
}

// streamsResult is the sse-keepalive result with both memory figures.
type streamsResult struct {
	*loadtest.StreamsResult
	PerStream memoryPerStream `json:"memory_per_stream"`
}

// Report replaces loadtest's single memory figure by the two labelled ones.
func (r *streamsResult) Report() loadtest.Report {
	rep := r.StreamsResult.Report()
	rep.Metrics = slices.DeleteFunc(rep.Metrics, func(m loadtest.Metric) bool { return m.Name == "memory/stream" })
	rep.Notes = slices.DeleteFunc(rep.Notes, func(n string) bool { return strings.HasPrefix(n, "memory/stream: ") })
	for _, f := range []struct {
		name, note string
		v          float64
	}{
		{metricHeapPerStream, r.PerStream.HeapNote, r.PerStream.Heap},
		{metricRSSPerStream, r.PerStream.RSSNote, r.PerStream.RSS},
	} {
		if f.v > 0 {
			rep.Metrics = append(rep.Metrics, loadtest.Metric{Name: f.name, Value: f.v, Unit: loadtest.UnitBytes})
		} else {
			rep.Notes = append(rep.Notes, f.name+" not measured: "+f.note)
		}
	}
	return rep
}

// measureStreams runs loadtest.Streams with a probe of the server's memory. Its result is a
// *streamsResult, or a nil interface (never a nil pointer in one).
func measureStreams(ctx context.Context, cfg loadtest.StreamsConfig, p *streamsProbe) (loadtest.Reporter, error) {
	cfg.Memory, cfg.MemorySource = p.read, "the server's memory"
	res, err := loadtest.Streams(ctx, cfg)
	if res == nil {
		return nil, err
	}
	return &streamsResult{StreamsResult: res, PerStream: p.perStream(res.Opened)}, err
}
