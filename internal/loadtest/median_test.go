package loadtest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMedian(t *testing.T) {
	assert.Equal(t, 2.0, Median([]float64{3, 1, 2}))
	assert.Equal(t, 2.5, Median([]float64{4, 1, 2, 3}))
	assert.Equal(t, 7.0, Median([]float64{7}))
	assert.Zero(t, Median(nil))
	vs := []float64{3, 1, 2}
	Median(vs)
	assert.Equal(t, []float64{3, 1, 2}, vs, "the input is not reordered")
}

// TestMedianReport merges three throughput runs the way a busy machine produces them.
func TestMedianReport(t *testing.T) {
	curve := func(p99 time.Duration) *Percentiles { return &Percentiles{P99: p99} }
	quiet, busy := &MachineState{Others: 0.05}, &MachineState{Others: 0.6}
	runs := []Report{
		{Scenario: "throughput", Target: "fastmcp", Latency: curve(1), Machine: quiet,
			Metrics: []Metric{{Name: "rps", Value: 54600, Unit: UnitRate}, {Name: "p99", Value: 2e6, Unit: UnitDuration}}},
		{Scenario: "throughput", Target: "fastmcp", Latency: curve(2), Machine: busy, Errors: Errors{"timeout": 2},
			Metrics: []Metric{{Name: "rps", Value: 14900, Unit: UnitRate}, {Name: "p99", Value: 3e6, Unit: UnitDuration}},
			Notes:   []string{"ERRORS: 2 of 1000 requests failed", "ERRORS: 2 of 1000 requests failed"}},
		{Scenario: "throughput", Target: "fastmcp", Latency: curve(3), Machine: quiet, Errors: Errors{"timeout": 1, "closed": 1},
			Metrics: []Metric{{Name: "rps", Value: 36200, Unit: UnitRate}, {Name: "p99", Value: 9e6, Unit: UnitDuration},
				{Name: "server CPU/request", Value: 25e3, Unit: UnitDuration}}},
	}
	m := MedianReport(runs, "rps")
	assert.Equal(t, "throughput", m.Scenario)
	assert.Equal(t, "fastmcp", m.Target)
	require.Len(t, m.Metrics, 3)
	assert.Equal(t, Metric{Name: "rps", Value: 36200, Unit: UnitRate, Runs: 3, Min: 14900, Max: 54600}, m.Metrics[0])
	assert.Equal(t, "36.2k req/s (14.9k–54.6k)", m.Metrics[0].String())
	assert.Equal(t, "3.00ms (2.00ms–9.00ms)", m.Metrics[1].String())
	assert.Equal(t, Metric{Name: "server CPU/request", Value: 25e3, Unit: UnitDuration, Runs: 1, Min: 25e3, Max: 25e3}, m.Metrics[2])
	assert.Equal(t, "25.0µs", m.Metrics[2].String(), "one run: no range")
	assert.Equal(t, Errors{"timeout": 3, "closed": 1}, m.Errors, "every run's errors count")
	assert.Equal(t, curve(3), m.Latency, "the curve of the median run by rps")
	assert.Same(t, busy, m.Machine, "the busiest run's machine")
	assert.Equal(t, []string{"ERRORS: 2 of 1000 requests failed (1 of 3 runs)"}, m.Notes)

	assert.Equal(t, curve(2), MedianReport(runs, "p99").Latency, "by p99 (2ms, 3ms, 9ms): the second run")
	assert.Equal(t, curve(1), MedianReport(runs, "none").Latency)
	assert.Equal(t, runs[1], MedianReport(runs[1:2], "rps"), "a single run as it is")
	assert.Empty(t, MedianReport(nil, "rps").Metrics)
}

func TestMetricString(t *testing.T) {
	for _, tc := range []struct {
		m    Metric
		want string
	}{
		{Metric{Value: 153200, Unit: UnitRate}, "153k req/s"},
		{Metric{Value: 12 << 10, Unit: UnitBytes, Runs: 3, Min: 11 << 10, Max: 13 << 10}, "12.0 KiB (11.0 KiB–13.0 KiB)"},
		{Metric{Value: 2, Unit: UnitCount, Runs: 2, Min: 1, Max: 3}, "2 (1–3)"},
		{Metric{Value: 40, Unit: UnitPerSec, Runs: 2, Min: 30, Max: 50}, "40 /s (30–50)"},
		{Metric{Value: 32, Unit: UnitCount, Runs: 3, Min: 32, Max: 32}, "32"},
	} {
		assert.Equal(t, tc.want, tc.m.String())
	}
}
