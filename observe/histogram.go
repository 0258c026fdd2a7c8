package observe

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// histogramStripes is how many copies of its counters a series keeps. Requests served on
// different cores at once pick different copies (at random: Go offers no cheap core id),
// so that they rarely write the same cache line; a scrape adds the copies up. A power of
// two, so the pick is a mask.
const histogramStripes = 8

// series is one label set of the duration histogram. Recording a request is two atomic
// additions to one stripe (its bucket, the sum in nanoseconds), where a
// prometheus.Histogram makes four, one a compare-and-swap loop, all on lines every core
// shares.
type series struct {
	labels  []string // the label values, in the order of durationLabels
	stripes [histogramStripes]*stripe
}

// stripe holds one copy of a series' counters: the count of each bucket (not cumulative;
// the last is +Inf) and, after them, the sum of the durations in nanoseconds. Each stripe is
// its own allocation, padded to whole cache lines, so that two stripes share none.
type stripe struct {
	cells []atomic.Uint64
}

// cacheLineCells is how many counters fill a cache line.
const cacheLineCells = 64 / 8

// histogramBounds are a histogram's upper bounds, in seconds for the scrape and in
// nanoseconds for the comparison: an observation counts in the first bucket whose bound it
// does not exceed, as a prometheus.Histogram counts it.
type histogramBounds struct {
	seconds []float64
	nanos   []int64
}

func newHistogramBounds(seconds []float64) histogramBounds {
	b := histogramBounds{seconds: slices.Clone(seconds), nanos: make([]int64, len(seconds))} // the caller's may change
	for i, s := range seconds {
		b.nanos[i] = int64(math.Floor(s * float64(time.Second)))
	}
	return b
}

func newSeries(labels []string, bounds histogramBounds) *series {
	s := &series{labels: labels}
	n := len(bounds.nanos) + 2 // the buckets, +Inf, the sum
	padded := (n + 2*cacheLineCells - 1) / cacheLineCells * cacheLineCells
	for i := range s.stripes {
		cells := make([]atomic.Uint64, padded+cacheLineCells)
		s.stripes[i] = &stripe{cells: cells[:n]} // the extra line keeps the next allocation off the last
	}
	return s
}

// observe records one duration.
func (s *series) observe(bounds *histogramBounds, d time.Duration) {
	ns := max(int64(d), 0)
	i := 0
	for i < len(bounds.nanos) && ns > bounds.nanos[i] {
		i++
	}
	cells := s.stripes[rand.Uint32()&(histogramStripes-1)].cells
	cells[i].Add(1)
	cells[len(cells)-1].Add(uint64(ns))
}

// metric is the series as a scrape reports it: cumulative buckets, their count and the sum
// in seconds. The count is always the buckets' total; a request recorded while a scrape reads
// the stripes may be counted without its duration in the sum, which the next scrape has.
func (s *series) metric(desc *prometheus.Desc, bounds *histogramBounds) prometheus.Metric {
	n := len(bounds.nanos)
	counts := make([]uint64, n+1)
	var sum uint64
	for _, st := range s.stripes {
		for i := range counts {
			counts[i] += st.cells[i].Load()
		}
		sum += st.cells[n+1].Load()
	}
	buckets := make(map[float64]uint64, n)
	var cumulative uint64
	for i, b := range bounds.seconds {
		cumulative += counts[i]
		buckets[b] = cumulative
	}
	count := cumulative + counts[n]
	return prometheus.MustNewConstHistogram(desc, count, float64(sum)/float64(time.Second), buckets, s.labels...)
}

// durationCollector reports the series of a [Metrics] to its registry.
type durationCollector struct{ m *Metrics }

func (c durationCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.m.desc }

func (c durationCollector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range *c.m.series.Load() {
		ch <- s.metric(c.m.desc, &c.m.bounds)
	}
}
