package loadtest

import (
	"fmt"
	"slices"
)

// Median is the median of vs: the middle value, or the mean of the two middle ones (0 for
// none).
func Median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(vs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// MedianReport merges the reports of several runs of one scenario against one target, so that
// a table shows what is typical of them rather than whichever came last:
//   - each metric is the median of the runs that have it, with their range (Runs, Min, Max);
//   - errors add up: a failed request of any run counts;
//   - the latency distribution is that of the median run by the metric key (one run's curve,
//     since percentiles of different runs do not combine);
//   - the machine state is the busiest run's (most CPU used by other processes), so that a
//     warning is not averaged away;
//   - each distinct note is kept once, marked with its share of the runs when not in all.
//
// A single report is returned as it is.
func MedianReport(runs []Report, key string) Report {
	if len(runs) == 1 {
		return runs[0]
	}
	if len(runs) == 0 {
		return Report{}
	}
	out := Report{Scenario: runs[0].Scenario, Target: runs[0].Target}
	values := map[string][]float64{}
	for _, r := range runs {
		for _, m := range r.Metrics {
			if _, seen := values[m.Name]; !seen {
				out.Metrics = append(out.Metrics, Metric{Name: m.Name, Unit: m.Unit})
			}
			values[m.Name] = append(values[m.Name], m.Value)
		}
		out.Errors.merge(r.Errors)
		if r.Machine != nil && (out.Machine == nil || r.Machine.Others > out.Machine.Others) {
			out.Machine = r.Machine
		}
	}
	for i := range out.Metrics {
		vs := values[out.Metrics[i].Name]
		out.Metrics[i].Value = Median(vs)
		out.Metrics[i].Runs = len(vs)
		out.Metrics[i].Min, out.Metrics[i].Max = slices.Min(vs), slices.Max(vs)
	}
	out.Latency = medianRun(runs, key).Latency
	counts := map[string]int{}
	var order []string
	for _, r := range runs {
		seen := map[string]bool{}
		for _, n := range r.Notes {
			if seen[n] {
				continue
			}
			seen[n] = true
			if counts[n] == 0 {
				order = append(order, n)
			}
			counts[n]++
		}
	}
	for _, n := range order {
		if counts[n] < len(runs) {
			n = fmt.Sprintf("%s (%d of %d runs)", n, counts[n], len(runs))
		}
		out.Notes = append(out.Notes, n)
	}
	return out
}

// medianRun is the run whose key metric is the median (the lower middle one of an even
// count); the first run when none has key.
func medianRun(runs []Report, key string) *Report {
	idx := make([]int, 0, len(runs))
	for i := range runs {
		if _, ok := runs[i].Metric(key); ok {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return &runs[0]
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		va, _ := runs[a].Metric(key)
		vb, _ := runs[b].Metric(key)
		switch {
		case va < vb:
			return -1
		case va > vb:
			return 1
		}
		return 0
	})
	return &runs[idx[(len(idx)-1)/2]]
}
