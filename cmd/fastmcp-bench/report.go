package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

// runReport is everything one command measured: printed as a table, written as JSON and
// HTML.
type runReport struct {
	Command  string            `json:"command"`
	Version  string            `json:"version"`
	Started  time.Time         `json:"started"`
	Elapsed  time.Duration     `json:"elapsed_ns"`
	Target   string            `json:"target,omitempty"`
	Reports  []loadtest.Report `json:"reports"`
	Results  []any             `json:"results"`
	Failures []string          `json:"failures,omitempty"`
	// Comparison is set by compare.
	Comparison *comparison `json:"comparison,omitempty"`
	// Clients is set by compare-clients.
	Clients *clientComparison `json:"clients,omitempty"`
	// Machine is the machine's state over the whole command (each report has its own
	// scenario's); MachineNote says why it is missing.
	Machine     *loadtest.MachineState `json:"machine,omitempty"`
	MachineNote string                 `json:"machine_note,omitempty"`
}

func (r *runReport) add(rep loadtest.Report, res any) {
	r.Reports = append(r.Reports, rep)
	r.Results = append(r.Results, res)
}

// goal is a figure the project commits to (issue 6), checked where a report has it.
type goal struct {
	scenario, metric string
	text             string
	ok               func(v float64) bool
}

var goals = []goal{
	{"latency", "p99", "≤ 1ms", func(v float64) bool { return v <= float64(time.Millisecond) }},
	// The resident set, not the heap: it is what a stream costs the machine.
	{"sse-keepalive", metricRSSPerStream, "≤ 20 KiB", func(v float64) bool { return v <= 20<<10 }},
	{"sse-keepalive", "list_changed to all", "≤ 50ms", func(v float64) bool { return v > 0 && v <= float64(50*time.Millisecond) }},
	// Issue 24: the fan-out within 1.1× of writing the same bytes to as many sockets.
	{"sse-keepalive", loadtest.MetricFloorRatio, "≤ 1.1× the floor", func(v float64) bool { return v > 0 && v <= loadtest.FloorGoal }},
	{"drain", "admitted lost", "= 0", func(v float64) bool { return v == 0 }},
	{"conncap", "excess closed unread", "= excess", nil},
	{"tasks", "ratio", "≤ 2× the floor", func(v float64) bool { return v > 0 && v <= 2 }},
}

func goalFor(scenario, metric string) *goal {
	for i := range goals {
		if goals[i].scenario == scenario && goals[i].metric == metric {
			return &goals[i]
		}
	}
	return nil
}

// goalMark returns "≤ 1ms ok" or "≤ 1ms MISSED" for a metric with a goal, else "".
func goalMark(rep *loadtest.Report, m loadtest.Metric) string {
	g := goalFor(rep.Scenario, m.Name)
	if g == nil {
		return ""
	}
	ok := false
	if g.ok != nil {
		ok = g.ok(m.Value)
	} else if excess, found := rep.Metric("excess"); found {
		ok = m.Value == excess
	}
	if ok {
		return "goal " + g.text + ": ok"
	}
	// A latency the generator made: its pacer handed the requests out late, so the figure
	// says how busy the generator's CPU was, not how fast the endpoint answered.
	if lag, found := rep.Metric(loadtest.MetricGeneratorLag); found && rep.Scenario == "latency" && lag > float64(loadtest.PacerLagLimit) {
		return "goal " + g.text + ": not judged (the generator was late: " + loadtest.MetricGeneratorLag + " " +
			loadtest.FormatDuration(time.Duration(lag)) + " > " + loadtest.FormatDuration(loadtest.PacerLagLimit) + ")"
	}
	return "goal " + g.text + ": MISSED"
}

// printReport prints the results table.
func printReport(w io.Writer, r *runReport) {
	fmt.Fprintf(w, "\nfastmcp-bench %s — %s — %.1fs\n\n", r.Version, r.Target, r.Elapsed.Seconds())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	value := "VALUE"
	if r.ranged() {
		value = "VALUE: median (min–max) of the runs"
	}
	fmt.Fprintf(tw, "SCENARIO\tTARGET\tMETRIC\t%s\tGOAL\n", value)
	for i := range r.Reports {
		rep := &r.Reports[i]
		for j, m := range rep.Metrics {
			sc, tg := "", ""
			if j == 0 {
				sc, tg = rep.Scenario, rep.Target
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", sc, tg, m.Name, m, goalMark(rep, m))
		}
		fmt.Fprintf(tw, "\t\terrors\t%s\t\n", rep.Errors)
		if rep.Machine != nil {
			v, mark := machineCell(rep.Machine)
			fmt.Fprintf(tw, "\t\tmachine\t%s\t%s\n", v, mark)
		}
	}
	tw.Flush()
	var notes []string
	for _, rep := range r.Reports {
		for _, n := range rep.Notes {
			notes = append(notes, rep.Scenario+": "+n)
		}
	}
	for _, f := range r.Failures {
		notes = append(notes, "FAILED "+f)
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range notes {
			fmt.Fprintln(w, n)
		}
	}
	total := int64(0)
	for _, rep := range r.Reports {
		total += rep.Errors.Total()
	}
	if total > 0 {
		fmt.Fprintf(w, "\nTHIS RUN HAD ERRORS: %d failed requests (see the errors rows).\n", total)
	} else if len(r.Failures) == 0 {
		fmt.Fprintln(w, "\nEvery response was checked: no errors.")
	}
}

// ranged reports whether a metric of r is the median of several runs.
func (r *runReport) ranged() bool {
	for i := range r.Reports {
		for _, m := range r.Reports[i].Metrics {
			if m.Runs > 1 {
				return true
			}
		}
	}
	return false
}

// write writes the JSON and HTML files that were asked for.
func (r *runReport) write(jsonFile, htmlFile string) error {
	if jsonFile != "" {
		b, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(jsonFile, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	if htmlFile != "" {
		var b strings.Builder
		if err := writeHTML(&b, r); err != nil {
			return err
		}
		if err := os.WriteFile(htmlFile, []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}
