package observe

import (
	"math"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSeriesMatchesPrometheusHistogram checks that a series reports what a
// prometheus.Histogram with the same buckets reports for the same durations: every bucket
// (bounds inclusive, as Prometheus counts them), the count and the sum.
func TestSeriesMatchesPrometheusHistogram(t *testing.T) {
	bounds := newHistogramBounds(DefaultBuckets)
	s := newSeries(seriesKey{"tools/call", "echo", "", "tcp", "2026-07-28"}, bounds)
	want := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "h", Buckets: DefaultBuckets})
	durations := []time.Duration{0, -time.Second, 100 * time.Microsecond, 100*time.Microsecond + 1, 250 * time.Microsecond,
		3 * time.Millisecond, time.Second, 7 * time.Minute, 42 * time.Nanosecond}
	for _, d := range durations {
		s.observe(&bounds, d)
		want.Observe(max(d, 0).Seconds())
	}
	desc := prometheus.NewDesc("h", "", []string{LabelMethod, LabelTool, LabelErrorType, LabelNetwork, LabelProtocolVersion}, nil)
	var got, exp dto.Metric
	require.NoError(t, s.metric(desc, &bounds).Write(&got))
	require.NoError(t, want.Write(&exp))
	assert.Equal(t, exp.GetHistogram().GetSampleCount(), got.GetHistogram().GetSampleCount())
	assert.InDelta(t, exp.GetHistogram().GetSampleSum(), got.GetHistogram().GetSampleSum(), 1e-9)
	require.Len(t, got.GetHistogram().GetBucket(), len(DefaultBuckets))
	for i, b := range exp.GetHistogram().GetBucket() {
		g := got.GetHistogram().GetBucket()[i]
		assert.Equal(t, b.GetUpperBound(), g.GetUpperBound())
		assert.Equal(t, b.GetCumulativeCount(), g.GetCumulativeCount(), "le=%v", b.GetUpperBound())
	}
	assert.Len(t, got.GetLabel(), 5)
}

// TestSeriesConcurrent records from several goroutines at once (run with -race): every
// request lands in some stripe, none is lost.
func TestSeriesConcurrent(t *testing.T) {
	bounds := newHistogramBounds([]float64{0.001})
	s := newSeries(seriesKey{"a", "b", "c", "d", "e"}, bounds)
	const goroutines, each = 4, 1000
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range each {
				s.observe(&bounds, time.Microsecond)
			}
		})
	}
	wg.Wait()
	var got dto.Metric
	require.NoError(t, s.metric(prometheus.NewDesc("h", "", []string{"a", "b", "c", "d", "e"}, nil), &bounds).Write(&got))
	assert.Equal(t, uint64(goroutines*each), got.GetHistogram().GetSampleCount())
	assert.Equal(t, uint64(goroutines*each), got.GetHistogram().GetBucket()[0].GetCumulativeCount())
	assert.InDelta(t, float64(goroutines*each)*1e-6, got.GetHistogram().GetSampleSum(), 1e-9)
}

// TestMetricsBucketsConfig checks the bucket bounds NewMetrics accepts: increasing, with a
// trailing +Inf dropped as prometheus.Histogram drops it.
func TestMetricsBucketsConfig(t *testing.T) {
	_, err := NewMetrics(MetricsConfig{Registerer: prometheus.NewRegistry(), Buckets: []float64{0.1, 0.1}})
	assert.ErrorIs(t, err, ErrInvalidConfig)
	_, err = NewMetrics(MetricsConfig{Registerer: prometheus.NewRegistry(), Buckets: []float64{1, 0.5}})
	assert.ErrorIs(t, err, ErrInvalidConfig)
	m, err := NewMetrics(MetricsConfig{Registerer: prometheus.NewRegistry(), Buckets: []float64{0.5, 1, posInf()}})
	require.NoError(t, err)
	assert.Equal(t, []float64{0.5, 1}, m.bounds.seconds)
}

func posInf() float64 { return math.Inf(1) }
