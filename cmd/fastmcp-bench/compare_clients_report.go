package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fastmcp-go/fastmcp/bench/clientbench"
	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

// clientRateGoal is issue 12's goal: the fastmcp client's rate with concurrent callers at
// least this many times the faster peer client's, in the same revision.
const clientRateGoal = 5.0

// clientComparison is what compare-clients measured: every round's result per line, and the
// medians and ratios computed from them.
type clientComparison struct {
	Server string `json:"server"`
	// Protected is the same server as an OAuth resource server, for the OAuth line.
	Protected string        `json:"protected_server,omitempty"`
	Rounds    int           `json:"rounds"`
	Callers   int           `json:"callers"`
	Duration  time.Duration `json:"duration_ns"`
	Warmup    time.Duration `json:"warmup_ns"`
	Pinned    bool          `json:"pinned"`
	Lines     []clientLine  `json:"lines"`
	// Results[key] are the line's results, one a round; Machine[key] the machine's state
	// during each.
	Results map[string][]clientbench.Result     `json:"results"`
	Machine map[string][]*loadtest.MachineState `json:"machine,omitempty"`
	// Summary[key] are the medians of the rounds; Ratios compare fastmcp with the faster
	// peer client of each revision.
	Summary map[string]clientSummary `json:"summary"`
	Ratios  []clientRatio            `json:"vs_faster_peer,omitempty"`
}

// clientSummary are a line's medians over its rounds.
type clientSummary struct {
	Protocol      string  `json:"protocol"`
	SeqNs         float64 `json:"sequential_ns_per_call"`
	SeqCPUNs      float64 `json:"sequential_cpu_ns_per_call"`
	SeqAllocs     float64 `json:"sequential_allocs_per_call"`
	SeqBytes      float64 `json:"sequential_bytes_per_call"`
	Rate          float64 `json:"concurrent_calls_per_second"`
	ConcCPUNs     float64 `json:"concurrent_cpu_ns_per_call"`
	ConcAllocs    float64 `json:"concurrent_allocs_per_call"`
	BusyRuns, Ran int     `json:"-"`
}

// clientRatio is fastmcp's client against the faster peer client of one revision: how many
// times its rate, and how many times less time, CPU and allocations per call the peer's cost.
type clientRatio struct {
	Protocol string  `json:"protocol"`
	Ours     string  `json:"ours"`
	Peer     string  `json:"peer"`
	Rate     float64 `json:"rate"`              // ours ÷ peer, concurrent callers
	SeqTime  float64 `json:"sequential_time"`   // peer ÷ ours, one caller
	CPU      float64 `json:"concurrent_cpu"`    // peer ÷ ours, client CPU per call
	Allocs   float64 `json:"sequential_allocs"` // peer ÷ ours
	Goal     string  `json:"goal"`              // "ok" or "MISSED"
}

// record adds one round's result of l.
func (c *clientComparison) record(l clientLine, r clientbench.Result, m *loadtest.MachineState) {
	c.Results[l.key()] = append(c.Results[l.key()], r)
	if m != nil {
		c.Machine[l.key()] = append(c.Machine[l.key()], m)
	}
}

// samples are one figure of every round of key.
func (c *clientComparison) samples(key string, f func(clientbench.Result) float64) []float64 {
	var vs []float64
	for _, r := range c.Results[key] {
		vs = append(vs, f(r))
	}
	return vs
}

// The figures of a result, as samples takes them.
var (
	figSeqNs      = func(r clientbench.Result) float64 { return r.Sequential.NsPerCall }
	figSeqCPU     = func(r clientbench.Result) float64 { return r.Sequential.CPUNsPerCall }
	figSeqAllocs  = func(r clientbench.Result) float64 { return r.Sequential.AllocsPerCall }
	figSeqBytes   = func(r clientbench.Result) float64 { return r.Sequential.BytesPerCall }
	figRate       = func(r clientbench.Result) float64 { return r.Concurrent.CallsPerSecond }
	figConcCPU    = func(r clientbench.Result) float64 { return r.Concurrent.CPUNsPerCall }
	figConcAllocs = func(r clientbench.Result) float64 { return r.Concurrent.AllocsPerCall }
)

// summarize computes the medians and the ratios once every round is in.
func (c *clientComparison) summarize() {
	c.Summary = map[string]clientSummary{}
	for _, l := range c.Lines {
		k := l.key()
		rs := c.Results[k]
		if len(rs) == 0 {
			continue
		}
		med := func(f func(clientbench.Result) float64) float64 { return loadtest.Median(c.samples(k, f)) }
		s := clientSummary{Protocol: rs[0].Protocol, SeqNs: med(figSeqNs), SeqCPUNs: med(figSeqCPU), SeqAllocs: med(figSeqAllocs),
			SeqBytes: med(figSeqBytes), Rate: med(figRate), ConcCPUNs: med(figConcCPU), ConcAllocs: med(figConcAllocs), Ran: len(rs)}
		for _, m := range c.Machine[k] {
			if m.TooBusy() != "" {
				s.BusyRuns++
			}
		}
		c.Summary[k] = s
	}
	c.Ratios = nil
	for _, l := range c.Lines {
		ours, ok := c.Summary[l.key()]
		if l.Peer || l.Direct || l.OAuth || !ok {
			continue
		}
		peer := ""
		for _, p := range c.Lines {
			ps, ok := c.Summary[p.key()]
			if p.Peer && ok && ps.Protocol == ours.Protocol && (peer == "" || ps.Rate > c.Summary[peer].Rate) {
				peer = p.key()
			}
		}
		if peer == "" {
			continue
		}
		ps := c.Summary[peer]
		r := clientRatio{Protocol: ours.Protocol, Ours: l.key(), Peer: peer, Rate: div(ours.Rate, ps.Rate),
			SeqTime: div(ps.SeqNs, ours.SeqNs), CPU: div(ps.ConcCPUNs, ours.ConcCPUNs), Allocs: div(ps.SeqAllocs, ours.SeqAllocs), Goal: "MISSED"}
		if r.Rate >= clientRateGoal {
			r.Goal = "ok"
		}
		c.Ratios = append(c.Ratios, r)
	}
}

func div(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// busiest is the machine state of key's busiest run (nil if none was measured).
func (c *clientComparison) busiest(key string) *loadtest.MachineState {
	var b *loadtest.MachineState
	for _, m := range c.Machine[key] {
		if b == nil || m.Others > b.Others {
			b = m
		}
	}
	return b
}

// lineLabel is how the table names a line.
func lineLabel(l clientLine) string {
	switch {
	case l.Direct:
		return "fastmcp in-process (inprocess.Connect)"
	case l.OAuth:
		return "fastmcp + client/oauth (bearer JWT, cached)"
	case l.Era == "legacy":
		return l.Name + ", initialize pinned"
	}
	return l.Name
}

// clientTable is the comparison as rows of cells, a header first: medians (min–max).
func (c *clientComparison) clientTable() [][]string {
	callers := fmt.Sprintf("%d callers", c.Callers)
	rows := [][]string{{"client", "revision", "1 caller: time/call", "client CPU/call", "allocs/call", "bytes/call",
		callers + ": calls/s", "client CPU/call", "allocs/call", "busy runs"}}
	dur := func(k string, f func(clientbench.Result) float64, med float64) string {
		return withRange(med, c.samples(k, f), fmtDuration, "")
	}
	num := func(k string, f func(clientbench.Result) float64, med float64, format string) string {
		return withRange(med, c.samples(k, f), func(v float64) string { return fmt.Sprintf(format, v) }, "")
	}
	for _, l := range c.Lines {
		k := l.key()
		s, ok := c.Summary[k]
		if !ok {
			rows = append(rows, []string{lineLabel(l), "failed", "-", "-", "-", "-", "-", "-", "-", "-"})
			continue
		}
		rows = append(rows, []string{lineLabel(l), s.Protocol,
			dur(k, figSeqNs, s.SeqNs), dur(k, figSeqCPU, s.SeqCPUNs), num(k, figSeqAllocs, s.SeqAllocs, "%.1f"),
			fmt.Sprintf("%.0f", s.SeqBytes), num(k, figRate, s.Rate, "%.0f"), dur(k, figConcCPU, s.ConcCPUNs),
			num(k, figConcAllocs, s.ConcAllocs, "%.1f"), fmt.Sprintf("%d of %d", s.BusyRuns, s.Ran)})
	}
	return rows
}

// ratioLines are the comparisons with the faster peer client, one a revision, and the goal.
func (c *clientComparison) ratioLines() []string {
	var out []string
	for _, r := range c.Ratios {
		out = append(out, fmt.Sprintf("  %s  %s against %s: rate %.2f× (%d callers); per call with 1 caller %.2f× less time, "+
			"%.2f× fewer allocations; client CPU per call %.2f× less (%d callers); goal rate ≥ %.0f×: %s",
			r.Protocol, r.Ours, r.Peer, r.Rate, c.Callers, r.SeqTime, r.Allocs, r.CPU, c.Callers, clientRateGoal, r.Goal))
	}
	return out
}

// oauthLines are the OAuth path's cost per call: each OAuth line against the fastmcp line of
// its era (the same server without the resource server), the difference of the medians.
func (c *clientComparison) oauthLines() []string {
	var out []string
	for _, l := range c.Lines {
		o, ok := c.Summary[l.key()]
		b, bok := c.Summary[clientLine{Name: nameFastmcp, Era: l.Era}.key()]
		if !l.OAuth || !ok || !bok {
			continue
		}
		out = append(out, fmt.Sprintf("  %s  with 1 caller %+.1f µs per call (%+.1f µs client CPU), %+.1f allocations and %+.0f bytes per call; "+
			"%d callers: rate %.2f× of without, client CPU per call %+.1f µs",
			o.Protocol, (o.SeqNs-b.SeqNs)/1e3, (o.SeqCPUNs-b.SeqCPUNs)/1e3, o.SeqAllocs-b.SeqAllocs, o.SeqBytes-b.SeqBytes,
			c.Callers, div(o.Rate, b.Rate), (o.ConcCPUNs-b.ConcCPUNs)/1e3))
	}
	return out
}

// printClientComparison prints compare-clients' table, ratios and notes.
func printClientComparison(w io.Writer, rep *runReport) {
	c := rep.Clients
	pinned := ""
	if c.Pinned {
		pinned = "; server on CPU 0, clients on CPU 1"
	}
	fmt.Fprintf(w, "\nfastmcp-bench %s compare-clients — tools/call echo against fastmcp serve at %s — %.1fs\n", rep.Version, c.Server, rep.Elapsed.Seconds())
	fmt.Fprintf(w, "Each client in its own process; medians (min–max) of %d interleaved rounds, each phase %s measured after %s%s.\n\n",
		c.Rounds, c.Duration, c.Warmup, pinned)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, row := range c.clientTable() {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
	if lines := c.ratioLines(); len(lines) > 0 {
		fmt.Fprintln(w, "\nfastmcp's client against the faster peer client of the same revision (ratios of the medians):")
		for _, l := range lines {
			fmt.Fprintln(w, l)
		}
	}
	if lines := c.oauthLines(); len(lines) > 0 {
		fmt.Fprintln(w, "\nThe OAuth path's cost per call with a cached token (client/oauth, bearer JWT), against the fastmcp line of")
		fmt.Fprintln(w, "the same revision; the protected server also checks the token (cached verification):")
		for _, l := range lines {
			fmt.Fprintln(w, l)
		}
	}
	fmt.Fprintln(w, "\nclient CPU/call is the client process's user+system time (getrusage) over the measured calls divided by")
	fmt.Fprintln(w, "their number; allocs and bytes/call come from its runtime.MemStats. The in-process line has no transport")
	fmt.Fprintln(w, "and includes the server's work: it is not compared with the peers.")
	for _, f := range rep.Failures {
		fmt.Fprintln(w, "FAILED "+f)
	}
	if slices.ContainsFunc(c.Lines, func(l clientLine) bool { _, ok := c.Summary[l.key()]; return !ok }) {
		fmt.Fprintln(w, "Some clients failed every round: see FAILED above.")
	}
}
