package main

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

// printGatewayTable prints, per connection count, each row's median req/s and spread, its
// median p50 and p99, and its CPU per call (the gateway's process, with its stdio child for
// the stdio rows), beside the direct backend and the faster npm gateway.
func printGatewayTable(w io.Writer, rows []*gatewayRow, conns []int) {
	fmt.Fprintf(w, "\ntools/call echo, one %s session per endpoint; medians (min–max) of interleaved rounds\n", loadtest.LegacyVersion)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "endpoint\tconns\treq/s\tmin–max\tp50\tp99\tCPU/call\tvs direct\tvs faster npm\t")
	for _, c := range conns {
		direct := medianOf(rowNamed(rows, nameGwDirect), c)
		npm := fasterNPM(rows, c)
		for _, r := range rows {
			m := medianOf(r, c)
			spread := "-"
			if s := r.rps[c]; len(s) > 0 {
				spread = fmt.Sprintf("%.0f–%.0f", slices.Min(s), slices.Max(s))
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.name, c, formatRPS(m, len(r.rps[c])), spread,
				durationCell(r.p50[c]), durationCell(r.p99[c]), durationCell(r.cpu[c]),
				ratio(m, direct, "%.2f×", 1), ratio(m, npm, "%.1f×", 1))
		}
	}
	_ = tw.Flush()
}

// printGatewayGoals judges the two goals: in front of the stdio server, ≥ 20× the
// faster npm gateway's req/s at the most connections; in front of a fastmcp backend, the
// gateway's CPU per call ≤ 2× the backend's own (the median over every connection count).
func printGatewayGoals(w io.Writer, rows []*gatewayRow, conns []int) {
	top := slices.Max(conns)
	fmt.Fprintln(w)
	stdio, npm := medianOf(rowNamed(rows, nameGwStdio), top), fasterNPM(rows, top)
	if stdio == 0 || npm == 0 {
		fmt.Fprintf(w, "gateway → stdio ≥ %.0f× the faster npm gateway at %d connections: not judged (not both measured)\n", goalGatewayStdioTimes, top)
	} else {
		fmt.Fprintf(w, "gateway → stdio %.0f req/s against the faster npm gateway's %.0f at %d connections: %.1f× (goal ≥ %.0f×): %s\n",
			stdio, npm, top, stdio/npm, goalGatewayStdioTimes, verdict(stdio/npm >= goalGatewayStdioTimes))
	}
	gw, direct := cpuMedian(rowNamed(rows, nameGwHTTP)), cpuMedian(rowNamed(rows, nameGwDirect))
	if gw == 0 || direct == 0 {
		fmt.Fprintf(w, "gateway CPU per call ≤ %.0f× a fastmcp server's: not judged (no CPU figures)\n", goalGatewayCPUTimes)
		return
	}
	fmt.Fprintf(w, "gateway → fastmcp CPU per call %s against the backend's own %s: %.2f× (goal ≤ %.0f×): %s\n",
		time.Duration(gw).Round(10*time.Nanosecond), time.Duration(direct).Round(10*time.Nanosecond), gw/direct, goalGatewayCPUTimes, verdict(gw/direct <= goalGatewayCPUTimes))
}

func verdict(met bool) string {
	if met {
		return "MET"
	}
	return "MISSED"
}

func rowNamed(rows []*gatewayRow, name string) *gatewayRow {
	for _, r := range rows {
		if r.name == name {
			return r
		}
	}
	return nil
}

// medianOf is a row's median req/s at c connections (0 for a row not measured).
func medianOf(r *gatewayRow, c int) float64 {
	if r == nil || len(r.rps[c]) == 0 {
		return 0
	}
	return loadtest.Median(r.rps[c])
}

// cpuMedian is a row's median CPU per call over every connection count's runs.
func cpuMedian(r *gatewayRow) float64 {
	if r == nil {
		return 0
	}
	var all []float64
	for _, s := range r.cpu {
		all = append(all, s...)
	}
	if len(all) == 0 {
		return 0
	}
	return loadtest.Median(all)
}

// fasterNPM is the higher median req/s of supergateway and mcp-proxy at c connections.
func fasterNPM(rows []*gatewayRow, c int) float64 {
	return max(medianOf(rowNamed(rows, nameGwSupergateway), c), medianOf(rowNamed(rows, nameGwMCPProxy), c))
}

// durationCell is the median of nanosecond samples, or "-".
func durationCell(samples []float64) string {
	if len(samples) == 0 {
		return "-"
	}
	d := time.Duration(loadtest.Median(samples))
	switch {
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	case d >= time.Microsecond:
		return d.Round(10 * time.Nanosecond).String()
	}
	return d.String()
}
