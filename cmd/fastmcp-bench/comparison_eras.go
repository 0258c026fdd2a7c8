package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

// The goal of issue 11: fastmcp's initialize-era tools/call costs at most 10% more than its
// 2026-07-28 one, in throughput and in allocations.
const (
	eraGoalRPS    = 0.90 // legacy rps ≥ this × modern rps
	eraGoalAllocs = 1.10 // legacy allocs/req ≤ this × modern allocs/req
)

// minAllocsForRatio is the fewest allocations per request whose ratio means something: the
// bare ceiling's are rounding noise (a background allocation now and then).
const minAllocsForRatio = 0.5

// eraRatio is one server's initialize-era path over its 2026-07-28 path, from the medians.
type eraRatio struct {
	Server string `json:"server"`
	// Missing says why there is no ratio (a path not served); the figures are then zero.
	Missing string `json:"missing,omitempty"`
	// Value is the legacy median over the modern one for the compared metric (rps or p99),
	// Rounds the same ratio round by round.
	Value  float64   `json:"value,omitempty"`
	Rounds []float64 `json:"rounds,omitempty"`
	// CPU and Allocs are the ratios of the server CPU and of the allocations per request
	// (zero when not measured); LegacyAllocs and ModernAllocs the allocations themselves.
	CPU          float64 `json:"server_cpu,omitempty"`
	Allocs       float64 `json:"allocs,omitempty"`
	LegacyAllocs float64 `json:"legacy_allocs_per_request,omitempty"`
	ModernAllocs float64 `json:"modern_allocs_per_request,omitempty"`
	// Goal is fastmcp's mark (see eraGoal).
	Goal string `json:"goal,omitempty"`
}

// eraRatios has one entry per server that has a target in both revisions, in table order.
func (c *comparison) eraRatios() []eraRatio {
	var out []eraRatio
	var done []string
	gen := c.Generators[0]
	for _, t := range c.Targets {
		srv := c.server(t)
		modern, legacy := c.find(srv, loadtest.ProtocolVersion), c.find(srv, loadtest.LegacyVersion)
		if slices.Contains(done, srv) || modern == "" || legacy == "" {
			continue
		}
		done = append(done, srv)
		r := eraRatio{Server: srv}
		var missing []string
		for _, x := range []string{modern, legacy} {
			if _, ok := c.NotServed[x]; ok {
				missing = append(missing, c.protocol(x))
			} else if c.Medians[gen][x] <= 0 {
				missing = append(missing, c.protocol(x)+" unmeasured")
			}
		}
		if len(missing) > 0 {
			r.Missing = strings.Join(missing, " and ")
			if !strings.HasSuffix(r.Missing, "unmeasured") {
				r.Missing += " not served"
			}
			out = append(out, r.marked(c.Metric))
			continue
		}
		r.Value = c.Medians[gen][legacy] / c.Medians[gen][modern]
		r.Rounds = c.roundRatios(gen, legacy, modern)
		if l, m := c.CPUMedians[legacy], c.CPUMedians[modern]; l > 0 && m > 0 {
			r.CPU = l / m
		}
		if _, ok := c.Allocs[legacy]; ok {
			if _, ok := c.Allocs[modern]; ok {
				r.LegacyAllocs, r.ModernAllocs = c.AllocMedians[legacy], c.AllocMedians[modern]
				if r.ModernAllocs >= minAllocsForRatio {
					r.Allocs = r.LegacyAllocs / r.ModernAllocs
				}
			}
		}
		out = append(out, r.marked(c.Metric))
	}
	return out
}

// marked sets the Goal of fastmcp on each of its stacks.
func (r eraRatio) marked(metric string) eraRatio {
	if r.Server == nameFastmcp || strings.HasPrefix(r.Server, nameFastmcp+"-") {
		r.Goal = r.eraGoal(metric)
	}
	return r
}

// eraGoal is fastmcp's mark: "ok", "MISSED", or why it cannot be told.
func (r *eraRatio) eraGoal(metric string) string {
	switch {
	case r.Missing != "":
		return "MISSED (" + r.Missing + ")"
	case metric != "rps":
		return ""
	case r.ModernAllocs == 0 && r.LegacyAllocs == 0:
		if r.Value < eraGoalRPS {
			return "MISSED"
		}
		return "rps ok, allocations not measured"
	case r.Value < eraGoalRPS || r.LegacyAllocs > eraGoalAllocs*r.ModernAllocs:
		return "MISSED"
	}
	return "ok"
}

// printEras prints the legacy/modern line of each server measured in both revisions.
func printEras(w io.Writer, c *comparison) {
	rs := c.Eras
	if len(rs) == 0 {
		return
	}
	fmt.Fprintf(w, "\nlegacy/modern: each server's %s tools/call over its %s one (ratios of the medians; round by round in brackets):\n",
		loadtest.LegacyVersion, loadtest.ProtocolVersion)
	width := 0
	for _, r := range rs {
		width = max(width, len(r.Server))
	}
	for _, r := range rs {
		line := fmt.Sprintf("  %-*s  ", width, r.Server)
		if r.Missing != "" {
			line += "no ratio: " + r.Missing
		} else {
			line += fmt.Sprintf("%s %.2f×", c.Metric, r.Value)
			if len(r.Rounds) > 1 {
				line += fmt.Sprintf(" (%.2f–%.2f)", slices.Min(r.Rounds), slices.Max(r.Rounds))
			}
			if r.CPU > 0 {
				line += fmt.Sprintf(", server CPU/req %.2f×", r.CPU)
			}
			switch {
			case r.Allocs > 0:
				line += fmt.Sprintf(", allocs/req %.2f× (%.1f vs %.1f)", r.Allocs, r.LegacyAllocs, r.ModernAllocs)
			case r.LegacyAllocs > 0 || r.ModernAllocs > 0:
				line += fmt.Sprintf(", allocs/req %.1f vs %.1f", r.LegacyAllocs, r.ModernAllocs)
			}
		}
		if r.Goal != "" {
			line += fmt.Sprintf("; goal %s ≥ %.2f× and allocs/req ≤ %.2f×: %s", c.Metric, eraGoalRPS, eraGoalAllocs, r.Goal)
		}
		fmt.Fprintln(w, line)
	}
}
