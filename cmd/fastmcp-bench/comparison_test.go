package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/loadtest"
)

// newComparison is three rounds of three targets with both generators, as compare records
// them.
func newComparison() *comparison {
	c := &comparison{Metric: "rps", Rounds: 3, Targets: []string{nameFastmcp, nameCeiling, "go-sdk"}, Generators: []string{"ours", "wrk"},
		Samples: map[string]map[string][]float64{}, Medians: map[string]map[string]float64{}}
	quiet, busy := &loadtest.MachineState{Others: 0.1}, &loadtest.MachineState{Others: 0.5}
	for round, s := range []struct{ fast, ceil, sdk float64 }{{120000, 150000, 3000}, {90000, 140000, 2900}, {125000, 155000, 3100}} {
		m := quiet
		if round == 1 {
			m = busy
		}
		c.record("ours", nameFastmcp, s.fast, &loadtest.ThroughputResult{ServerCPU: 25000}, m)
		c.record("ours", nameCeiling, s.ceil, &loadtest.ThroughputResult{ServerCPU: 18000}, m)
		c.record("ours", "go-sdk", s.sdk, &loadtest.ThroughputResult{ServerCPU: 540000}, m)
		c.record("wrk", nameFastmcp, s.fast+5000, nil, nil)
		c.record("wrk", nameCeiling, s.ceil+5000, nil, nil)
		c.record("wrk", "go-sdk", s.sdk+100, nil, nil)
	}
	c.summarize()
	return c
}

// TestComparisonTable: every value is the median with the range of the rounds, and the
// header and ratios say which.
func TestComparisonTable(t *testing.T) {
	c := newComparison()
	rows := c.table()
	require.Len(t, rows, 4)
	assert.Equal(t, []string{"target", "rps (ours)", "fastmcp ÷ target", "of ceiling", "rps (wrk)", "fastmcp ÷ target", "of ceiling",
		"ours ÷ wrk", "server CPU/req", "ceiling ÷ target CPU", "busy runs"}, rows[0])
	assert.Equal(t, []string{"fastmcp", "120000 req/s (90000–125000)", "1.00×", "80.0%", "125000 req/s (95000–130000)", "1.00×", "80.6%",
		"96.0%", "25.0µs", "72.0%", "1 of 3"}, rows[1])
	assert.Equal(t, "40.00×", rows[3][2])
	assert.Equal(t, "540µs", rows[3][8], "the same CPU in every round: no range")

	var b strings.Builder
	printComparison(&b, c)
	out := b.String()
	assert.Contains(t, out, "medians (min–max) of 3 interleaved rounds; ratios are of the medians")
	assert.Contains(t, out, "fastmcp reaches 80.0% of the bare fasthttp ceiling (medians; 64.3%–80.6% round by round; goal ≥ 75%): ok")
	assert.Contains(t, out, "our generator reaches 96.8% of wrk against the ceiling (medians; goal ≥ 90%): ok")

	// A latency comparison: p99 medians, with their range.
	l := &comparison{Metric: "p99", Rounds: 2, Targets: []string{nameFastmcp}, Generators: []string{"ours"},
		Samples: map[string]map[string][]float64{}, Medians: map[string]map[string]float64{}}
	l.record("ours", nameFastmcp, 1.2e6, nil, nil)
	l.record("ours", nameFastmcp, 1.6e6, nil, nil)
	l.summarize()
	assert.Equal(t, []string{"fastmcp", "p99 1.40ms (1.20ms–1.60ms)", "1.00×"}, l.table()[1])
}

// TestCompareReportMedians: the per-target tables of compare show the median of the rounds
// with their range (not the last round), labelled as such.
func TestCompareReportMedians(t *testing.T) {
	var rounds []loadtest.Report
	for _, rps := range []float64{54600, 14900, 36200} {
		rounds = append(rounds, (&loadtest.ThroughputResult{Target: nameFastmcp, RPS: rps, Connections: 32}).Report())
	}
	r := &runReport{Version: "devel", Target: "x", Comparison: newComparison()}
	r.add(loadtest.MedianReport(rounds, "rps"), nil)
	var b strings.Builder
	printReport(&b, r)
	printLegend(&b, r)
	out := b.String()
	assert.Regexp(t, `VALUE: median \(min–max\) of the runs`, out)
	assert.Regexp(t, `rps\s+36\.2k req/s \(14\.9k–54\.6k\)`, out)
	assert.NotContains(t, out, "14.9k req/s ", "not one round's figure alone")
	assert.Regexp(t, `(?m)^  median \(min–max\)\s+the median of the runs`, out)
	assert.Regexp(t, `(?m)^  busy runs\s+the target's runs`, out)
	assert.Regexp(t, `(?m)^  ours ÷ wrk\s+our generator`, out)
	assert.NotContains(t, out, "target ÷ fastmcp", "a column of latency comparisons only")
}
