package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

// TestPrintMetricsLine checks the metrics on/off line: ratios of the medians, the range of
// the rounds, allocations, and the 5% goal's mark in each revision.
func TestPrintMetricsLine(t *testing.T) {
	c := &comparison{Metric: "rps", Rounds: 2, Generators: []string{"ours"},
		Samples: map[string]map[string][]float64{}, Medians: map[string]map[string]float64{}}
	for _, d := range []loadtest.Dialect{loadtest.Dialect2026, loadtest.DialectLegacy} {
		c.addTarget(nameFastmcp, d)
		c.addTarget(nameMetricsOn, d)
	}
	for _, s := range []struct {
		target string
		rps    []float64
	}{
		{nameFastmcp, []float64{100_000, 100_000}},
		{nameMetricsOn, []float64{97_000, 99_000}},
		{nameFastmcp + "@" + loadtest.LegacyVersion, []float64{90_000, 90_000}},
		{nameMetricsOn + "@" + loadtest.LegacyVersion, []float64{80_000, 82_000}},
	} {
		for _, v := range s.rps {
			c.record("ours", s.target, v, nil, nil)
		}
	}
	c.summarize()
	var b bytes.Buffer
	printMetricsLine(&b, c)
	assert.Equal(t, "\nmetrics on/off: fastmcp with serve --metrics over fastmcp without, measured side by side (ratios of the medians; round by round in brackets):\n"+
		"  2026-07-28 rps 0.980× (0.970–0.990); goal within 5%: ok\n"+
		"  2025-11-25 rps 0.900× (0.889–0.911); goal within 5%: MISSED\n", b.String())
}

// TestPrintMetricsLineNone checks that nothing is printed without the metrics-on server.
func TestPrintMetricsLineNone(t *testing.T) {
	c := &comparison{Metric: "rps", Generators: []string{"ours"}, Samples: map[string]map[string][]float64{}, Medians: map[string]map[string]float64{}}
	c.addTarget(nameFastmcp, loadtest.Dialect2026)
	c.record("ours", nameFastmcp, 1, nil, nil)
	c.summarize()
	var b bytes.Buffer
	printMetricsLine(&b, c)
	assert.Empty(t, b.String())
	assert.Equal(t, "ok", metricsMark("p99", 1.04))
	assert.Equal(t, "MISSED", metricsMark("p99", 1.06))
}

// TestPrintMetricsPairs checks the paired runs' lines: the median of the pairs' ratios
// judges the goal, with the quartiles (the range for fewer than four pairs), and the rounds'
// line then leaves the judging to them.
func TestPrintMetricsPairs(t *testing.T) {
	c := &comparison{Metric: "rps", Rounds: 1, Generators: []string{"ours"},
		Samples: map[string]map[string][]float64{}, Medians: map[string]map[string]float64{},
		MetricsPairs: []metricsPair{
			{Protocol: "2026-07-28", Durations: "1s", RPS: []float64{0.90, 0.97, 0.98, 0.99, 1.20}, CPU: []float64{1.01, 1.02, 1.03, 1.04, 1.05}},
			{Protocol: "2025-11-25", Durations: "1s", RPS: []float64{0.92, 0.94}},
		}}
	c.addTarget(nameFastmcp, loadtest.Dialect2026)
	c.addTarget(nameMetricsOn, loadtest.Dialect2026)
	c.record("ours", nameFastmcp, 100, nil, nil)
	c.record("ours", nameMetricsOn, 90, nil, nil)
	c.summarize()
	var b bytes.Buffer
	printMetricsLine(&b, c)
	printMetricsPairs(&b, c)
	assert.Equal(t, "\nmetrics on/off: fastmcp with serve --metrics over fastmcp without, measured side by side (ratios of the medians; round by round in brackets):\n"+
		"  2026-07-28 rps 0.900×\n"+
		"metrics on/off, paired runs: 5 pairs of 1s runs back to back; the median of the pairs' ratios (quartiles, or the range, in brackets) is what the goal judges:\n"+
		"  2026-07-28 rps 0.980× (0.970–0.990), server CPU/req 1.030× (1.020–1.040); goal within 5%: ok\n"+
		"  2025-11-25 rps 0.930× (0.920–0.940); goal within 5%: MISSED\n", b.String())
}
