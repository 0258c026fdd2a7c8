package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/fastmcp-go/fastmcp/loadtest"
)

// comparison is what compare measured. Every figure it prints is the median of the rounds
// with their range, and says so: a single round of a shared machine means little.
type comparison struct {
	Scenario   string   `json:"scenario"`
	Metric     string   `json:"metric"` // "rps" or "p99"
	Rounds     int      `json:"rounds"`
	Pinned     bool     `json:"pinned"`
	Rate       float64  `json:"rate,omitempty"`
	Targets    []string `json:"targets"`
	Generators []string `json:"generators"`
	// Samples[generator][target] are the per-round values; Medians their medians.
	Samples map[string]map[string][]float64 `json:"samples"`
	Medians map[string]map[string]float64   `json:"medians"`
	// CPU[target] are the server's CPU nanoseconds per request in each round (our generator,
	// servers this command started); CPUMedians their medians.
	CPU        map[string][]float64 `json:"server_cpu_ns_per_request,omitempty"`
	CPUMedians map[string]float64   `json:"server_cpu_ns_per_request_median,omitempty"`
	// Machine[target] is the machine's state during each of the target's runs.
	Machine map[string][]*loadtest.MachineState `json:"machine,omitempty"`
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
	if len(c.CPU) > 0 {
		c.CPUMedians = map[string]float64{}
		for t, vs := range c.CPU {
			c.CPUMedians[t] = loadtest.Median(vs)
		}
	}
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

// table is the comparison as rows of cells, a header first. Values are medians (min–max);
// ratios are ratios of the medians.
func (c *comparison) table() [][]string {
	head := []string{"target"}
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
	if len(c.Machine) > 0 {
		head = append(head, "busy runs")
	}
	rows := [][]string{head}
	for _, t := range c.Targets {
		row := []string{t}
		for _, g := range c.Generators {
			v, ok := c.Medians[g][t]
			base := c.Medians[g][nameFastmcp]
			ceil := c.Medians[g][nameCeiling]
			if !ok || v == 0 {
				row = append(row, "-", "-")
				if c.Metric == "rps" {
					row = append(row, "-")
				}
				continue
			}
			row = append(row, c.cell(v, c.Samples[g][t]))
			if c.Metric == "rps" {
				row = append(row, fmt.Sprintf("%.2f×", base/v))
				if ceil > 0 {
					row = append(row, fmt.Sprintf("%.1f%%", 100*v/ceil))
				} else {
					row = append(row, "-")
				}
			} else {
				row = append(row, fmt.Sprintf("%.2f×", v/base))
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
				if ceil := c.CPUMedians[nameCeiling]; ceil > 0 {
					row = append(row, fmt.Sprintf("%.1f%%", 100*ceil/v))
				} else {
					row = append(row, "-")
				}
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

// roundShares is fastmcp's rate over the ceiling's round by round (interleaved rounds run
// the two close in time), when both have every round.
func (c *comparison) roundShares(gen string) []float64 {
	f, ceil := c.Samples[gen][nameFastmcp], c.Samples[gen][nameCeiling]
	if len(f) != c.Rounds || len(ceil) != c.Rounds {
		return nil
	}
	shares := make([]float64, len(f))
	for i := range f {
		shares[i] = f[i] / ceil[i]
	}
	return shares
}

func printComparison(w io.Writer, c *comparison) {
	pinned := ""
	if c.Pinned {
		pinned = ", pinned"
	}
	fmt.Fprintf(w, "\n%s, medians (min–max) of %d interleaved rounds%s; ratios are of the medians:\n\n", c.Scenario, c.Rounds, pinned)
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
			if i == 0 {
				fmt.Fprint(w, cell+strings.Repeat(" ", pad))
			} else {
				fmt.Fprint(w, "  "+strings.Repeat(" ", pad)+cell)
			}
		}
		fmt.Fprintln(w)
	}
	if c.Metric != "rps" {
		return
	}
	gen := c.Generators[0]
	if v, ceil := c.Medians[gen][nameFastmcp], c.Medians[gen][nameCeiling]; ceil > 0 {
		mark := "ok"
		if v < 0.75*ceil {
			mark = "MISSED"
		}
		spread := ""
		if s := c.roundShares(gen); len(s) > 1 {
			spread = fmt.Sprintf("; %.1f%%–%.1f%% round by round", 100*slices.Min(s), 100*slices.Max(s))
		}
		fmt.Fprintf(w, "\nfastmcp reaches %.1f%% of the bare fasthttp ceiling (medians%s; goal ≥ 75%%): %s\n", 100*v/ceil, spread, mark)
	}
	if v, ceil := c.CPUMedians[nameFastmcp], c.CPUMedians[nameCeiling]; v > 0 && ceil > 0 {
		fmt.Fprintf(w, "by median server CPU per request (%s vs %s), fastmcp's capacity is %.1f%% of the ceiling's (less sensitive to other load on the machine)\n",
			loadtest.FormatDuration(time.Duration(v)), loadtest.FormatDuration(time.Duration(ceil)), 100*ceil/v)
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
