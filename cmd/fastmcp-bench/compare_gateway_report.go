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
// the stdio rows), beside the direct backend and the faster npm gateway of its revision, and
// how many of its runs the machine was too busy for.
func printGatewayTable(w io.Writer, rows []*gatewayRow, conns []int) {
	fmt.Fprintln(w, "\ntools/call echo, a 2025-11-25 row in one session per endpoint; medians (min–max) of interleaved rounds")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "endpoint\trevision\tconns\treq/s\tmin–max\tp50\tp99\tCPU/call\tvs direct\tvs faster npm\tbusy runs\t")
	for _, c := range conns {
		for _, r := range rows {
			m := medianOf(r, c)
			spread := "-"
			if s := r.rps[c]; len(s) > 0 {
				spread = fmt.Sprintf("%.0f–%.0f", slices.Min(s), slices.Max(s))
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d/%d\t\n", r.name, r.dialect, c, formatRPS(m, len(r.rps[c])), spread,
				durationCell(r.p50[c]), durationCell(r.p99[c]), durationCell(r.cpu[c]),
				ratio(m, medianOf(rowNamed(rows, nameGwDirect, r.dialect), c), "%.2f×", 1),
				ratio(m, fasterNPM(rows, r.dialect, c), "%.1f×", 1), r.busy[c], len(r.rps[c]))
		}
	}
	_ = tw.Flush()
}

// printGatewayGoals judges the two goals: in front of the stdio server, in the
// 2025-11-25 session both npm gateways serve, ≥ 20× the faster one's req/s at the most
// connections; in front of a fastmcp backend, the gateway's CPU per call ≤ 2× the backend's
// own, both measured at one rate (compare_gateway_rate.go), in each revision measured.
func printGatewayGoals(w io.Writer, rows []*gatewayRow, conns []int, same []*sameRateCPU) {
	top := slices.Max(conns)
	legacy := loadtest.DialectLegacy
	fmt.Fprintln(w)
	stdio, npm := medianOf(rowNamed(rows, nameGwStdio, legacy), top), fasterNPM(rows, legacy, top)
	if stdio == 0 || npm == 0 {
		fmt.Fprintf(w, "Goal: gateway → stdio ≥ %.0f× the faster npm gateway (%s, %d connections): not judged (not both measured)\n",
			goalGatewayStdioTimes, legacy, top)
	} else {
		fmt.Fprintf(w, "Goal: gateway → stdio %.0f req/s against the faster npm gateway's %.0f (%s, %d connections): %.1f× (goal ≥ %.0f×): %s\n",
			stdio, npm, legacy, top, stdio/npm, goalGatewayStdioTimes, verdict(stdio/npm >= goalGatewayStdioTimes))
	}
	printSameRateCPU(w, rows, same)
}

func roundCPU(ns float64) time.Duration { return time.Duration(ns).Round(10 * time.Nanosecond) }

func verdict(met bool) string {
	if met {
		return "met"
	}
	return "NOT MET"
}

// rowNamed is the row of endpoint name in revision d, nil if there is none.
func rowNamed(rows []*gatewayRow, name string, d loadtest.Dialect) *gatewayRow {
	for _, r := range rows {
		if r.name == name && r.dialect == d {
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

// fasterNPM is the higher median req/s of supergateway and mcp-proxy in revision d at c
// connections (0 when neither was measured).
func fasterNPM(rows []*gatewayRow, d loadtest.Dialect, c int) float64 {
	return max(medianOf(rowNamed(rows, nameGwSupergateway, d), c), medianOf(rowNamed(rows, nameGwMCPProxy, d), c))
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
