package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

// comparison is what compare measured. Every figure it prints is the median of the rounds
// with their range, and says so: a single round of a shared machine means little.
type comparison struct {
	Scenario string  `json:"scenario"`
	Metric   string  `json:"metric"` // "rps" or "p99"
	Rounds   int     `json:"rounds"`
	Pinned   bool    `json:"pinned"`
	Rate     float64 `json:"rate,omitempty"`
	// PacerLag is each latency run's generator lag p99, by target (ns): above
	// loadtest.PacerLagLimit its p99 is the generator's.
	PacerLag map[string][]float64 `json:"pacer_lag,omitempty"`
	// RateFraction is the fraction of fastmcp's probed maximum Rate is, when it was probed.
	RateFraction float64  `json:"rate_fraction,omitempty"`
	Targets      []string `json:"targets"`
	Generators   []string `json:"generators"`
	// Server[target] is the server a target is and Protocol[target] the revision of its
	// requests (a server has one target per revision, see targetKey); a target absent from
	// them is its own server, driven with 2026-07-28.
	Server   map[string]string `json:"server,omitempty"`
	Protocol map[string]string `json:"protocol,omitempty"`
	// NotServed[target] is why the target failed its check: it was not measured, and the
	// table says so instead of a figure.
	NotServed map[string]string `json:"not_served,omitempty"`
	// Samples[generator][target] are the per-round values; Medians their medians.
	Samples map[string]map[string][]float64 `json:"samples"`
	Medians map[string]map[string]float64   `json:"medians"`
	// CPU[target] are the server's CPU nanoseconds per request in each round (our generator,
	// servers this command started); CPUMedians their medians.
	CPU        map[string][]float64 `json:"server_cpu_ns_per_request,omitempty"`
	CPUMedians map[string]float64   `json:"server_cpu_ns_per_request_median,omitempty"`
	// Cores[target] and GeneratorCores[target] are the cores the server and our generator
	// used in each of those rounds (1 = one core busy); CoresMedians and
	// GeneratorCoresMedians their medians: whether the ceiling was the server's or the
	// generator's (see ceilingCheck).
	Cores                 map[string][]float64 `json:"server_cores,omitempty"`
	GeneratorCores        map[string][]float64 `json:"generator_cores,omitempty"`
	CoresMedians          map[string]float64   `json:"server_cores_median,omitempty"`
	GeneratorCoresMedians map[string]float64   `json:"generator_cores_median,omitempty"`
	// Allocs[target] and AllocBytes[target] are the server's heap allocations (objects,
	// bytes) per request in each round (our generator, servers with a pprof endpoint);
	// AllocMedians and AllocBytesMedians their medians.
	Allocs            map[string][]float64 `json:"server_allocs_per_request,omitempty"`
	AllocBytes        map[string][]float64 `json:"server_alloc_bytes_per_request,omitempty"`
	AllocMedians      map[string]float64   `json:"server_allocs_per_request_median,omitempty"`
	AllocBytesMedians map[string]float64   `json:"server_alloc_bytes_per_request_median,omitempty"`
	// Machine[target] is the machine's state during each of the target's runs.
	Machine map[string][]*loadtest.MachineState `json:"machine,omitempty"`
	// Eras are the legacy/modern ratios of each server measured in both revisions.
	Eras []eraRatio `json:"legacy_over_modern,omitempty"`
	// MetricsPairs are compare --metrics's paired runs, per revision.
	MetricsPairs []metricsPair `json:"metrics_pairs,omitempty"`
}

// targetKey names a server's target in one protocol revision: the server's own name for
// 2026-07-28 (the keys of the JSON before there were legacy targets), name@revision else.
func targetKey(server string, d loadtest.Dialect) string {
	if d == loadtest.Dialect2026 {
		return server
	}
	return server + "@" + d.String()
}

// addTarget appends a target of server driven with d.
func (c *comparison) addTarget(server string, d loadtest.Dialect) string {
	t := targetKey(server, d)
	if c.Server == nil {
		c.Server, c.Protocol = map[string]string{}, map[string]string{}
	}
	c.Targets = append(c.Targets, t)
	c.Server[t], c.Protocol[t] = server, d.String()
	return t
}

// server is the server of target t; protocol the revision of its requests.
func (c *comparison) server(t string) string {
	if s, ok := c.Server[t]; ok {
		return s
	}
	return t
}

func (c *comparison) protocol(t string) string {
	if p, ok := c.Protocol[t]; ok {
		return p
	}
	return loadtest.ProtocolVersion
}

// sibling is the target of server in t's protocol revision ("" if there is none).
func (c *comparison) sibling(t, server string) string {
	return c.find(server, c.protocol(t))
}

// find is the target of server driven with protocol ("" if none).
func (c *comparison) find(server, protocol string) string {
	for _, o := range c.Targets {
		if c.server(o) == server && c.protocol(o) == protocol {
			return o
		}
	}
	return ""
}

// notServed records that t failed its check.
func (c *comparison) notServed(t string, err error) {
	if c.NotServed == nil {
		c.NotServed = map[string]string{}
	}
	c.NotServed[t] = err.Error()
}

// recordAllocs adds one run's allocations per request.
func (c *comparison) recordAllocs(target string, objects, bytes float64) {
	if c.Allocs == nil {
		c.Allocs, c.AllocBytes = map[string][]float64{}, map[string][]float64{}
	}
	c.Allocs[target] = append(c.Allocs[target], objects)
	c.AllocBytes[target] = append(c.AllocBytes[target], bytes)
}

// record adds one run's value (and server CPU and machine state, when known).
func (c *comparison) record(gen, target string, v float64, res loadtest.Reporter, m *loadtest.MachineState) {
	if c.Samples[gen] == nil {
		c.Samples[gen] = map[string][]float64{}
	}
	c.Samples[gen][target] = append(c.Samples[gen][target], v)
	if tr, ok := res.(*loadtest.ThroughputResult); ok && tr.ServerCPU > 0 {
		if c.CPU == nil {
			c.CPU = map[string][]float64{}
		}
		c.CPU[target] = append(c.CPU[target], float64(tr.ServerCPU))
		if c.Cores == nil {
			c.Cores, c.GeneratorCores = map[string][]float64{}, map[string][]float64{}
		}
		c.Cores[target] = append(c.Cores[target], tr.ServerCores)
		c.GeneratorCores[target] = append(c.GeneratorCores[target], tr.GeneratorCores)
	}
	if lr, ok := res.(*loadtest.LatencyResult); ok {
		if c.PacerLag == nil {
			c.PacerLag = map[string][]float64{}
		}
		c.PacerLag[target] = append(c.PacerLag[target], float64(lr.PacerLag.P99))
	}
	if m != nil {
		if c.Machine == nil {
			c.Machine = map[string][]*loadtest.MachineState{}
		}
		c.Machine[target] = append(c.Machine[target], m)
	}
}

// summarize computes the medians once every round is in.
func (c *comparison) summarize() {
	for gen, byTarget := range c.Samples {
		c.Medians[gen] = map[string]float64{}
		for t, vs := range byTarget {
			c.Medians[gen][t] = loadtest.Median(vs)
		}
	}
	c.CPUMedians = medians(c.CPU)
	c.CoresMedians, c.GeneratorCoresMedians = medians(c.Cores), medians(c.GeneratorCores)
	c.AllocMedians = medians(c.Allocs)
	c.AllocBytesMedians = medians(c.AllocBytes)
	c.Eras = c.eraRatios()
}

// medians maps each key of samples to the median of its values (nil when there are none).
func medians(samples map[string][]float64) map[string]float64 {
	if len(samples) == 0 {
		return nil
	}
	m := make(map[string]float64, len(samples))
	for k, vs := range samples {
		m[k] = loadtest.Median(vs)
	}
	return m
}

func (c *comparison) format(v float64) string {
	if c.Metric == "p99" {
		return "p99 " + loadtest.FormatDuration(time.Duration(v))
	}
	return fmt.Sprintf("%.0f req/s", v)
}

// cell is a median followed by the range of its rounds when they differed:
// "39065 req/s (35100–41200)".
func (c *comparison) cell(median float64, vs []float64) string {
	if c.Metric == "p99" {
		return "p99 " + withRange(median, vs, fmtDuration, "")
	}
	return withRange(median, vs, func(v float64) string { return fmt.Sprintf("%.0f", v) }, " req/s")
}

// cpuCell is cell for the server CPU per request.
func cpuCell(median float64, vs []float64) string { return withRange(median, vs, fmtDuration, "") }

func fmtDuration(v float64) string { return loadtest.FormatDuration(time.Duration(v)) }

// withRange formats median and its unit, then the range of vs if they differ.
func withRange(median float64, vs []float64, f func(float64) string, unit string) string {
	s := f(median) + unit
	if len(vs) > 1 && slices.Min(vs) != slices.Max(vs) {
		s += " (" + f(slices.Min(vs)) + "–" + f(slices.Max(vs)) + ")"
	}
	return s
}

// notServedCell stands for the figures of a target that failed its check.
const notServedCell = "not served"

// table is the comparison as rows of cells, a header first. Values are medians (min–max);
// ratios are ratios of the medians, each between targets of the same protocol revision.
func (c *comparison) table() [][]string {
	head := []string{"target", "protocol"}
	for _, g := range c.Generators {
		head = append(head, c.Metric+" ("+g+")")
		if c.Metric == "rps" {
			head = append(head, "fastmcp ÷ target", "of ceiling")
		} else {
			head = append(head, "target ÷ fastmcp")
		}
	}
	if len(c.Generators) == 2 {
		head = append(head, "ours ÷ wrk")
	}
	if len(c.CPUMedians) > 0 {
		head = append(head, "server CPU/req", "ceiling ÷ target CPU")
	}
	if len(c.AllocMedians) > 0 {
		head = append(head, "allocs/req", "bytes/req")
	}
	if len(c.Machine) > 0 {
		head = append(head, "busy runs")
	}
	rows := [][]string{head}
	for _, t := range c.Targets {
		row := []string{c.server(t), c.protocol(t)}
		if _, ok := c.NotServed[t]; ok {
			row = append(row, notServedCell)
			for len(row) < len(head) {
				row = append(row, "-")
			}
			rows = append(rows, row)
			continue
		}
		base, ceilT := c.sibling(t, nameFastmcp), c.sibling(t, nameCeiling)
		for _, g := range c.Generators {
			v, ok := c.Medians[g][t]
			if !ok || v == 0 {
				row = append(row, "-", "-")
				if c.Metric == "rps" {
					row = append(row, "-")
				}
				continue
			}
			row = append(row, c.cell(v, c.Samples[g][t]))
			if c.Metric == "rps" {
				row = append(row, ratioCell(c.Medians[g][base], v))
				if ceil := c.Medians[g][ceilT]; ceil > 0 {
					row = append(row, fmt.Sprintf("%.1f%%", 100*v/ceil))
				} else {
					row = append(row, "-")
				}
			} else {
				row = append(row, ratioCell(v, c.Medians[g][base]))
			}
		}
		if len(c.Generators) == 2 {
			if w := c.Medians["wrk"][t]; w > 0 {
				row = append(row, fmt.Sprintf("%.1f%%", 100*c.Medians["ours"][t]/w))
			} else {
				row = append(row, "-")
			}
		}
		if len(c.CPUMedians) > 0 {
			if v := c.CPUMedians[t]; v > 0 {
				row = append(row, cpuCell(v, c.CPU[t]))
				if ceil := c.CPUMedians[ceilT]; ceil > 0 {
					row = append(row, fmt.Sprintf("%.1f%%", 100*ceil/v))
				} else {
					row = append(row, "-")
				}
			} else {
				row = append(row, "-", "-")
			}
		}
		if len(c.AllocMedians) > 0 {
			if vs, ok := c.Allocs[t]; ok {
				row = append(row, withRange(c.AllocMedians[t], vs, fmtAllocs, ""),
					withRange(c.AllocBytesMedians[t], c.AllocBytes[t], fmtBytes, ""))
			} else {
				row = append(row, "-", "-")
			}
		}
		if len(c.Machine) > 0 {
			row = append(row, c.busyRuns(t))
		}
		rows = append(rows, row)
	}
	return rows
}

// ratioCell is "2.40×", or "-" when either side is missing.
func ratioCell(num, den float64) string {
	if num <= 0 || den <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f×", num/den)
}

func fmtAllocs(v float64) string { return fmt.Sprintf("%.1f", v) }

func fmtBytes(v float64) string {
	return loadtest.Metric{Value: math.Round(v), Unit: loadtest.UnitBytes}.String()
}

// busyRuns is "1 of 3": the target's runs during which the machine was too busy.
func (c *comparison) busyRuns(target string) string {
	ms := c.Machine[target]
	if len(ms) == 0 {
		return "-"
	}
	n := 0
	for _, m := range ms {
		if m.TooBusy() != "" {
			n++
		}
	}
	return fmt.Sprintf("%d of %d", n, len(ms))
}

// roundRatios is num's value over den's round by round (interleaved rounds run the two
// close in time), when both have every round.
func (c *comparison) roundRatios(gen, num, den string) []float64 {
	a, b := c.Samples[gen][num], c.Samples[gen][den]
	if len(a) != c.Rounds || len(b) != c.Rounds {
		return nil
	}
	r := make([]float64, len(a))
	for i := range a {
		r[i] = a[i] / b[i]
	}
	return r
}

func printComparison(w io.Writer, c *comparison) {
	pinned := ""
	if c.Pinned {
		pinned = ", pinned"
	}
	fmt.Fprintf(w, "\n%s, medians (min–max) of %d interleaved rounds%s; ratios are of the medians, within one protocol revision:\n\n", c.Scenario, c.Rounds, pinned)
	rows := c.table()
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, cell := range r {
			widths[i] = max(widths[i], len([]rune(cell)))
		}
	}
	for _, r := range rows {
		for i, cell := range r {
			pad := widths[i] - len([]rune(cell))
			switch i {
			case 0:
				fmt.Fprint(w, cell+strings.Repeat(" ", pad))
			case 1:
				fmt.Fprint(w, "  "+cell+strings.Repeat(" ", pad))
			default:
				fmt.Fprint(w, "  "+strings.Repeat(" ", pad)+cell)
			}
		}
		fmt.Fprintln(w)
	}
	printPaths(w, c)
	if c.Metric == "p99" {
		if line := c.latencyFloor(); line != "" {
			fmt.Fprintln(w, "\n"+line)
		}
		return
	}
	if c.Metric != "rps" {
		return
	}
	gen := c.Generators[0]
	for _, proto := range c.protocols() {
		f, ceilT := c.find(nameFastmcp, proto), c.find(nameCeiling, proto)
		v, ceil := c.Medians[gen][f], c.Medians[gen][ceilT]
		if v <= 0 || ceil <= 0 {
			continue
		}
		mark := "ok"
		if v < 0.75*ceil {
			mark = "MISSED"
		}
		spread := ""
		if s := c.roundRatios(gen, f, ceilT); len(s) > 1 {
			spread = fmt.Sprintf("; %.1f%%–%.1f%% round by round", 100*slices.Min(s), 100*slices.Max(s))
		}
		fmt.Fprintf(w, "\nfastmcp %s reaches %.1f%% of the bare fasthttp ceiling (medians%s; goal ≥ 75%%): %s\n", proto, 100*v/ceil, spread, mark)
		if v, ceil := c.CPUMedians[f], c.CPUMedians[ceilT]; v > 0 && ceil > 0 {
			fmt.Fprintf(w, "by median server CPU per request (%s vs %s), fastmcp's capacity is %.1f%% of the ceiling's (less sensitive to other load on the machine)\n",
				loadtest.FormatDuration(time.Duration(v)), loadtest.FormatDuration(time.Duration(ceil)), 100*ceil/v)
		}
		if line := c.ceilingCheck(ceilT); line != "" {
			fmt.Fprintln(w, line)
		}
	}
	if len(c.Generators) == 2 {
		if ours, wrk := c.Medians["ours"][nameCeiling], c.Medians["wrk"][nameCeiling]; wrk > 0 {
			mark := "ok"
			if ours < 0.9*wrk {
				mark = "MISSED"
			}
			fmt.Fprintf(w, "our generator reaches %.1f%% of wrk against the ceiling (medians; goal ≥ 90%%): %s\n", 100*ours/wrk, mark)
		}
	}
}

// printPaths says why each target not served was not, and prints the legacy/modern lines.
func printPaths(w io.Writer, c *comparison) {
	for _, t := range c.Targets {
		if why, ok := c.NotServed[t]; ok {
			fmt.Fprintf(w, "%s %s not served: %s\n", c.server(t), c.protocol(t), why)
		}
	}
	printEras(w, c)
}

// protocols are the revisions of the targets, in their order.
func (c *comparison) protocols() []string {
	var ps []string
	for _, t := range c.Targets {
		if p := c.protocol(t); !slices.Contains(ps, p) {
			ps = append(ps, p)
		}
	}
	return ps
}

// ceilingFull is the share of its core the bare server must use for its rate to be the
// ceiling: below it, the generator (or the machine) was the limit.
const ceilingFull = 0.95

// ceilingCheck says whether the bare server, pinned to a core of its own, was the limit of
// its runs (its median CPU at least ceilingFull of that core), with our generator's own
// share: "" when it was not measured. Unpinned, servers and generator share the CPUs and no
// share tells which was the limit.
func (c *comparison) ceilingCheck(ceilT string) string {
	cores, ok := c.CoresMedians[ceilT]
	if !ok || cores <= 0 {
		return ""
	}
	gen := c.GeneratorCoresMedians[ceilT]
	if !c.Pinned {
		return fmt.Sprintf("the ceiling's run: bare fasthttp used %.0f%% of a core, our generator %.0f%% (not pinned: which was the limit is not told; --pin tells)", 100*cores, 100*gen)
	}
	if cores >= ceilingFull {
		return fmt.Sprintf("the ceiling is the server's: bare fasthttp used %.0f%% of its core (goal ≥ %.0f%%), our generator %.0f%% of its own: ok", 100*cores, 100*ceilingFull, 100*gen)
	}
	return fmt.Sprintf("NOT THE SERVER'S CEILING: bare fasthttp used only %.0f%% of its core (goal ≥ %.0f%%) while our generator used %.0f%% of its own: the generator (or the machine) was the limit, and every \"of ceiling\" above flatters its server", 100*cores, 100*ceilingFull, 100*gen)
}
