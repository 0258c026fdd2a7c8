package main

import (
	"fmt"
	"io"
	"slices"
)

// nameMetricsOn is fastmcp served with serve --metrics (and nothing else different), which
// compare --metrics measures in the same rounds as fastmcp.
const nameMetricsOn = nameFastmcp + "-metrics"

// metricsGoal is issue 14's: instrumentation costs at most 5% (throughput with metrics on at
// least 0.95× of off; p99 at most 1.05×).
const metricsGoal = 0.05

// metricsOnArgs are the serve flags of nameMetricsOn.
var metricsOnArgs = []string{"--metrics", "127.0.0.1:0"}

// printMetricsLine prints, per protocol revision, fastmcp with metrics on over fastmcp with
// them off: the ratio of the medians, its range round by round, CPU and allocations per
// request, and the goal's mark. It prints nothing when either was not measured.
func printMetricsLine(w io.Writer, c *comparison) {
	gen := c.Generators[0]
	header := false
	for _, p := range c.protocols() {
		on, off := c.find(nameMetricsOn, p), c.find(nameFastmcp, p)
		if on == "" || off == "" || c.Medians[gen][on] <= 0 || c.Medians[gen][off] <= 0 {
			continue
		}
		if !header {
			fmt.Fprintf(w, "\nmetrics on/off: fastmcp with serve --metrics over fastmcp without, measured side by side (ratios of the medians; round by round in brackets):\n")
			header = true
		}
		ratio := c.Medians[gen][on] / c.Medians[gen][off]
		line := fmt.Sprintf("  %-10s %s %.3f×", p, c.Metric, ratio)
		if rs := c.roundRatios(gen, on, off); len(rs) > 1 {
			line += fmt.Sprintf(" (%.3f–%.3f)", slices.Min(rs), slices.Max(rs))
		}
		if a, b := c.CPUMedians[on], c.CPUMedians[off]; a > 0 && b > 0 {
			line += fmt.Sprintf(", server CPU/req %.3f×", a/b)
		}
		if _, ok := c.Allocs[on]; ok {
			line += fmt.Sprintf(", allocs/req %.1f vs %.1f", c.AllocMedians[on], c.AllocMedians[off])
		}
		if len(c.MetricsPairs) == 0 { // else the paired runs judge the goal
			line += fmt.Sprintf("; goal within %.0f%%: %s", 100*metricsGoal, metricsMark(c.Metric, ratio))
		}
		fmt.Fprintln(w, line)
	}
}

// metricsMark judges a metrics-on/off ratio of metric (rps: higher is better; p99: lower).
func metricsMark(metric string, ratio float64) string {
	if metric == "rps" && ratio >= 1-metricsGoal || metric != "rps" && ratio <= 1+metricsGoal {
		return "ok"
	}
	return "MISSED"
}
