package observe

import (
	"math"
	"slices"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// histogramStripes is how many copies of its counters a series keeps. Requests served on
// different cores at once pick different copies (by their duration's low bits, which are as
// good as random and already in a register: Go offers no cheap core id, and math/rand
// costs as much as an atomic addition), so that they rarely write the same cache line; a
// scrape adds the copies up. A power of two, so the pick is a mask.
const histogramStripes = 8

// series is one label set of the duration histogram. Recording a request is two atomic
// additions to one stripe (its bucket, the sum in nanoseconds), where a
// prometheus.Histogram makes four, one a compare-and-swap loop, all on lines every core
// shares.
type series struct {
	counters
	labels []string // the label values, in the order of durationLabels
}

// counters are a series' stripes, stride cells each: the sum of the durations in
// nanoseconds, then the count of each bucket (not cumulative; the last is +Inf), then
// padding to whole cache lines, so that two stripes share no line. The sum comes first so
// that a fast request, counted in the first buckets, writes a single line. The stripes are
// one allocation, so that no pointer leads from one to the next.
type counters struct {
	cells  []atomic.Uint64
	stride int
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

func newSeries(k seriesKey, bounds histogramBounds) *series {
	n := 1 + len(bounds.nanos) + 1 // the sum, the buckets, +Inf
	stride := (n + cacheLineCells - 1) / cacheLineCells * cacheLineCells
	// The extra line keeps the next allocation off the last stripe.
	cells := make([]atomic.Uint64, histogramStripes*stride+cacheLineCells)
	return &series{counters: counters{cells: cells, stride: stride}, labels: []string{k.method, k.tool, k.errorType, k.network, k.version}}
}

// stripeOf picks the stripe of a request that took ns: its nanoseconds folded so that a
// clock of microsecond steps still spreads the picks.
func stripeOf(ns int64) uint64 {
	h := uint64(ns)
	return (h ^ h>>10 ^ h>>20) & (histogramStripes - 1)
}

// observe records one duration.
func (c *counters) observe(bounds *histogramBounds, d time.Duration) {
	ns := max(int64(d), 0)
	i := 1
	for _, b := range bounds.nanos {
		if ns <= b {
			break
		}
		i++
	}
	base := int(stripeOf(ns)) * c.stride
	c.cells[base].Add(uint64(ns))
	c.cells[base+i].Add(1)
}

// metric is the series as a scrape reports it: cumulative buckets, their count and the sum
// in seconds. The count is always the buckets' total; a request recorded while a scrape reads
// the stripes may have its duration in the sum and not yet its count, which the next scrape
// has.
func (s *series) metric(desc *prometheus.Desc, bounds *histogramBounds) prometheus.Metric {
	n := len(bounds.nanos)
	counts := make([]uint64, n+1)
	var sum uint64
	for base := 0; base < histogramStripes*s.stride; base += s.stride {
		sum += s.cells[base].Load()
		for i := range counts {
			counts[i] += s.cells[base+1+i].Load()
		}
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
	for _, e := range *c.m.series.Load() {
		if !e.alias {
			ch <- e.s.metric(c.m.desc, &c.m.bounds)
		}
	}
}
