package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

var (
	quiet = &loadtest.MachineState{CPUs: 2, Window: time.Second, Load1: 1.1, Busy: 0.6, Ours: 0.55, Others: 0.05, Steal: 0.001}
	busy  = &loadtest.MachineState{CPUs: 2, Window: time.Second, Load1: 7.5, Busy: 0.98, Ours: 0.4, Others: 0.58, Steal: 0.02}
)

// TestMachineReport: each scenario gets a machine row, a busy one is marked, and the
// warning under the table names it.
func TestMachineReport(t *testing.T) {
	r := &runReport{Version: "devel", Target: "x", Machine: busy, Reports: []loadtest.Report{
		{Scenario: "throughput", Target: "fastmcp", Metrics: []loadtest.Metric{{Name: "rps", Value: 20000, Unit: loadtest.UnitRate}}, Machine: busy},
		{Scenario: "drain", Target: "fastmcp", Metrics: []loadtest.Metric{{Name: "closed unread", Unit: loadtest.UnitCount}}, Machine: quiet},
	}}
	var b strings.Builder
	printReport(&b, r)
	printMachine(&b, r)
	out := b.String()
	assert.Regexp(t, `machine\s+other processes 58%, steal 2.0%, load 7.50\s+TOO BUSY`, out)
	assert.Regexp(t, `machine\s+other processes 5%, steal 0.1%, load 1.10\s*\n`, out)
	assert.Contains(t, out, "Machine over the whole run: load 7.50 on 2 CPUs, CPU busy 98% (this run 40%, other processes 58%), steal 2.0%.")
	assert.Contains(t, out, "WARNING: THE MACHINE WAS TOO BUSY")
	assert.Contains(t, out, "Rerun when it is quiet:\n", "no server CPU figure to point to")
	assert.Contains(t, out, "  throughput fastmcp: other processes used 58% of the CPUs (limit 25%)\n")
	assert.NotContains(t, out, "drain fastmcp: other")

	b.Reset()
	r.Machine, r.Reports = quiet, r.Reports[1:]
	printMachine(&b, r)
	assert.Contains(t, b.String(), "The machine was quiet enough (other processes ≤ 25% of the CPUs, steal ≤ 10%) in every scenario.")
	assert.NotContains(t, b.String(), "WARNING")

	b.Reset()
	r.Machine, r.MachineNote = nil, "open /proc/stat: no such file or directory"
	printMachine(&b, r)
	assert.Contains(t, b.String(), "Machine state not measured: open /proc/stat")
}

// TestLegendCoversEveryMetric: every metric a scenario reports, and the machine row, has a
// line in the legend, so no term of the table goes unexplained.
func TestLegendCoversEveryMetric(t *testing.T) {
	results := []loadtest.Reporter{
		&loadtest.ThroughputResult{ServerCPU: time.Microsecond, ServerCores: 1},
		&loadtest.LatencyResult{},
		&loadtest.ConnCapResult{},
		&loadtest.StreamsResult{},
		&streamsResult{StreamsResult: &loadtest.StreamsResult{}, PerStream: memoryPerStream{Heap: 8 << 10, RSS: 12 << 10}},
		&loadtest.DrainResult{Runs: []loadtest.DrainRun{{}}, DrainTimeout: time.Second},
		&loadtest.SlowlorisResult{},
		&loadtest.ProgressResult{},
	}
	r := &runReport{}
	for _, res := range results {
		rep := res.Report()
		rep.Machine = quiet
		r.add(rep, res)
	}
	var b strings.Builder
	printLegend(&b, r)
	legend := b.String()
	for _, rep := range r.Reports {
		for _, m := range rep.Metrics {
			found := false
			for _, term := range glossary {
				found = found || term.matches(m.Name)
			}
			assert.True(t, found, "%s: metric %q has no glossary term", rep.Scenario, m.Name)
		}
	}
	for _, want := range []string{"send lag p99", "service p99", "closed unread", "excess closed unread", "heap+stacks/stream", "RSS/stream", "machine", "errors"} {
		assert.Regexp(t, `(?m)^  `+regexp.QuoteMeta(want)+`\s{2,}\S`, legend)
	}
	assert.NotContains(t, legend, "of ceiling", "compare's columns only with a comparison")
	for _, line := range strings.Split(legend, "\n") {
		assert.LessOrEqual(t, len([]rune(line)), 100, line)
	}

	full := fullLegend(true)
	for _, term := range append(glossary, compareGlossary...) {
		assert.Contains(t, full, strings.TrimSpace(term.name))
	}
	assert.NotContains(t, fullLegend(false), "of ceiling")
}

func TestTermMatches(t *testing.T) {
	for _, tc := range []struct {
		term, metric string
		want         bool
	}{
		{"p50", "p99.9", true},
		{"p50", "max", true},
		{"p50", "keepalive p50", false},
		{"legit p99 ", "legit p99 under flood", true},
		{"legit p99 ", "legit p99", false},
		{"streams", "streams completed", false},
	} {
		require.Equal(t, tc.want, term{name: tc.term}.matches(tc.metric), "%q ~ %q", tc.term, tc.metric)
	}
}

// A latency run whose generator was late is not judged against the goal: the p99 would be
// the generator's; an on-time one is.
func TestLatencyGoalNeedsAnOnTimeGenerator(t *testing.T) {
	mark := func(p99, lag time.Duration) string {
		rep := loadtest.Report{Scenario: "latency"}
		rep.Metrics = []loadtest.Metric{
			{Name: "p99", Value: float64(p99), Unit: loadtest.UnitDuration},
			{Name: loadtest.MetricGeneratorLag, Value: float64(lag), Unit: loadtest.UnitDuration},
		}
		return goalMark(&rep, rep.Metrics[0])
	}
	assert.Equal(t, "goal ≤ 1ms: ok", mark(800*time.Microsecond, 2*time.Millisecond))
	assert.Equal(t, "goal ≤ 1ms: MISSED", mark(6*time.Millisecond, 40*time.Microsecond))
	assert.Equal(t, "goal ≤ 1ms: not judged (the generator was late: generator lag p99 5.65ms > 100µs)", mark(6*time.Millisecond, 5650*time.Microsecond))
}
