package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

// Defaults of the metrics goal's paired runs (compare --metrics).
const (
	defaultMetricsPairs        = 20
	defaultMetricsPairDuration = time.Second
	metricsPairWarmup          = 200 * time.Millisecond
)

// metricsPair is what the paired runs measured in one protocol revision: per pair, metrics
// on over off in requests per second and in server CPU per request.
type metricsPair struct {
	Protocol  string    `json:"protocol"`
	RPS       []float64 `json:"rps_ratios"`
	CPU       []float64 `json:"server_cpu_ratios,omitempty"`
	Durations string    `json:"duration"`
}

// metricsPairs measures the metrics goal on its own, after the rounds: pairs of short runs
// of fastmcp and fastmcp-metrics back to back (the first of a pair alternating, so neither
// always runs first), in each revision. A 5% effect drowns in the rounds' medians on a
// shared machine, whose speed drifts by more than that between runs seconds apart; two runs
// a second apart see the same machine, and the median of many pairs' ratios keeps the
// pairs a burst of load disturbed from deciding it.
func metricsPairs(ctx context.Context, o *compareOptions, targets map[string]loadtest.Target, cmp *comparison, live *liveLine) {
	for _, p := range cmp.protocols() {
		off, on := cmp.find(nameFastmcp, p), cmp.find(nameMetricsOn, p)
		toff, okOff := targets[off]
		ton, okOn := targets[on]
		if off == "" || on == "" || !okOff || !okOn {
			continue
		}
		pair := metricsPair{Protocol: p, Durations: o.metricsPairDuration.String()}
		for i := range o.metricsPairs {
			order := []loadtest.Target{toff, ton}
			if i%2 == 1 {
				order = []loadtest.Target{ton, toff}
			}
			var res [2]*loadtest.ThroughputResult
			for j, t := range order {
				r, err := loadtest.Throughput(ctx, loadtest.ThroughputConfig{Target: t, Connections: o.connections,
					Duration: o.metricsPairDuration, Warmup: metricsPairWarmup, Progress: live.update})
				if err != nil || r.RPS <= 0 {
					live.printf("metrics pair %d %s %s: %v", i+1, t.Name, p, err)
					return
				}
				res[j] = r
			}
			if i%2 == 1 {
				res[0], res[1] = res[1], res[0]
			}
			pair.RPS = append(pair.RPS, res[1].RPS/res[0].RPS)
			if res[0].ServerCPU > 0 && res[1].ServerCPU > 0 {
				pair.CPU = append(pair.CPU, float64(res[1].ServerCPU)/float64(res[0].ServerCPU))
			}
			live.printf("metrics pair %d/%d %s: rps on/off %.3f", i+1, o.metricsPairs, p, pair.RPS[len(pair.RPS)-1])
		}
		cmp.MetricsPairs = append(cmp.MetricsPairs, pair)
	}
}

// printMetricsPairs prints the paired runs' line per revision: the median of the pairs'
// ratios (with their quartiles), which is what the goal judges.
func printMetricsPairs(w io.Writer, c *comparison) {
	for i, p := range c.MetricsPairs {
		if i == 0 {
			fmt.Fprintf(w, "metrics on/off, paired runs: %d pairs of %s runs back to back; the median of the pairs' ratios (quartiles, or the range, in brackets) is what the goal judges:\n", len(p.RPS), p.Durations)
		}
		rps := loadtest.Median(p.RPS)
		line := fmt.Sprintf("  %-10s rps %.3f× %s", p.Protocol, rps, quartiles(p.RPS))
		if len(p.CPU) > 0 {
			line += fmt.Sprintf(", server CPU/req %.3f× %s", loadtest.Median(p.CPU), quartiles(p.CPU))
		}
		fmt.Fprintf(w, "%s; goal within %.0f%%: %s\n", line, 100*metricsGoal, metricsMark("rps", rps))
	}
}

// quartiles formats the first and third quartiles of vs as "(q1–q3)" (nearest rank), or
// its range when there are too few values for quartiles.
func quartiles(vs []float64) string {
	s := slices.Sorted(slices.Values(vs))
	if len(s) < 4 {
		return fmt.Sprintf("(%.3f–%.3f)", s[0], s[len(s)-1])
	}
	return fmt.Sprintf("(%.3f–%.3f)", s[(len(s)-1)/4], s[(3*(len(s)-1))/4])
}
