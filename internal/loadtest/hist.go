package loadtest

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Latencies are recorded in HDR histograms in nanoseconds, from 1 µs to 1 minute, with three
// significant digits; a longer latency is recorded as one minute.
const (
	histMin    = int64(time.Microsecond)
	histMax    = int64(time.Minute)
	histDigits = 3
)

func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(histMin, histMax, histDigits) }

func record(h *hdrhistogram.Histogram, d time.Duration) {
	v := int64(d)
	if v < histMin {
		v = histMin
	} else if v > histMax {
		v = histMax
	}
	_ = h.RecordValue(v)
}

// Percentiles summarizes a latency distribution. Durations are in nanoseconds in JSON.
type Percentiles struct {
	Count int64         `json:"count"`
	Mean  time.Duration `json:"mean_ns"`
	P50   time.Duration `json:"p50_ns"`
	P90   time.Duration `json:"p90_ns"`
	P99   time.Duration `json:"p99_ns"`
	P999  time.Duration `json:"p999_ns"`
	Max   time.Duration `json:"max_ns"`
	// Curve is the percentile curve for plots: the latency at each of CurveQuantiles.
	Curve []CurvePoint `json:"curve,omitempty"`
}

// CurvePoint is one point of a percentile curve.
type CurvePoint struct {
	Percentile float64       `json:"percentile"`
	Latency    time.Duration `json:"latency_ns"`
}

// CurveQuantiles are the percentiles a curve is sampled at, spaced for a log "1/(1-p)" axis.
var CurveQuantiles = []float64{0, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.999, 100}

// summarize reads h's percentiles (zero when h is empty).
func summarize(h *hdrhistogram.Histogram) Percentiles {
	if h == nil || h.TotalCount() == 0 {
		return Percentiles{}
	}
	p := Percentiles{
		Count: h.TotalCount(),
		Mean:  time.Duration(h.Mean()),
		P50:   time.Duration(h.ValueAtQuantile(50)),
		P90:   time.Duration(h.ValueAtQuantile(90)),
		P99:   time.Duration(h.ValueAtQuantile(99)),
		P999:  time.Duration(h.ValueAtQuantile(99.9)),
		Max:   time.Duration(h.Max()),
	}
	for _, q := range CurveQuantiles {
		var v int64
		switch q {
		case 0:
			v = h.Min()
		case 100:
			v = h.Max()
		default:
			v = h.ValueAtQuantile(q)
		}
		p.Curve = append(p.Curve, CurvePoint{Percentile: q, Latency: time.Duration(v)})
	}
	return p
}
