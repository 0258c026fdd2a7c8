package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

// term explains one word of the reports. Names match metric names exactly, or a metric's
// prefix when the name ends with a space ("legit p99 " covers both phases).
type term struct{ name, text string }

// glossary explains every metric and column the reports print, in the order of the scenarios.
var glossary = []term{
	{"rps", "throughput: checked echo calls per second, closed loop (each connection sends its next request when the last is answered)"},
	{"connections", "keep-alive connections carrying the load"},
	{"requests", "checked successful responses in the measured window"},
	{"p50", "latency percentiles p50, p90, p99, p99.9 and max: throughput measures from the actual send; latency from each request's due time, so waiting to be sent counts (no coordinated omission)"},
	{"server CPU/request", "the server process's CPU time (user+system, /proc/PID/stat, 10 ms steps) over the window, per request: disturbed far less by other load than a rate"},
	{"server allocs/request", "compare: the server's heap allocations (runtime.MemStats.Mallocs from its heap profile, read before and after the run less one reading's own cost) over the replies it gave, warmup included"},
	{"server bytes/request", "compare: the bytes of those allocations (MemStats.TotalAlloc), per reply"},
	{"server cores", "the server's CPU time over the window's wall time (1 = one core busy)"},
	{"rate", "latency: the fixed rate at which requests fall due (open loop)"},
	{"achieved", "checked successful responses per second actually obtained"},
	{"service p99", "from the actual send to the response, without waits for the generator or a free connection; far below p99 means requests queued before they were sent"},
	{"send lag p99", "how late requests were sent after their due time, because the generator or every connection was busy; large means the rate was not really applied"},
	{"generator lag p99", "how late the generator itself handed requests out (its own CPU was late, whatever the endpoint did); above 100µs the latency goal is not judged: the figure would be the generator's"},
	{"backlog", "requests that fell due in the window but were never sent: the endpoint did not keep up"},
	{"cap", "conncap: the endpoint's connection cap"},
	{"flood conns", "connection attempts of the flood, each sending one echo call"},
	{"admitted", "flood connections the endpoint served (held open to the end)"},
	{"excess closed unread", "flood connections closed by the endpoint without reading a request or sending a byte (goal: all of the excess)"},
	{"excess", "flood attempts beyond the cap"},
	{"legit p99 ", "p99 of the legitimate open-loop load without the attack (baseline), then with it"},
	{"streams", "listen streams open (subscriptions/listen, each acknowledged); in drain, those open when it began"},
	{"open time", "time to open every stream"},
	{"keepalives", "keep-alive comments received in the observation window"},
	{"keepalive p50", "median interval between two keep-alive comments on a stream"},
	{"keepalive jitter", "spread of that interval, p99 minus p1"},
	{"list_changed to all", "worst round: from the trigger of one tools/list_changed until the last stream had it"},
	{"list_changed median", "the median stream's time in the slowest round"},
	{"missed", "stream-rounds that did not get list_changed within the wait"},
	{"median of rounds", "with the write floor: the median stream of each round, median over the rounds (what median/write floor divides)"},
	{"write floor to all", "the write floor's worst round, after each of the server's: as many loopback streams, each written the server's own list_changed bytes once, by one goroutine per CPU, read by the same reader (after one unmeasured round)"},
	{"write floor median", "the write floor's median stream, median over its rounds"},
	{"median/write floor", "the server's median stream over the write floor's, each the median of its rounds, in the same run (issue 24 goal ≤ 1.1×)"},
	{"heap+stacks/stream", "growth of the server's Go heap in use plus goroutine stacks (after a GC, from its runtime metrics) per opened stream"},
	{"RSS/stream", "growth of the server process's resident memory (VmRSS, /proc/PID/status) per opened stream: what the OS charges, runtime overhead included"},
	{"runs", "consecutive drain runs, each on a fresh endpoint"},
	{"admitted lost", "requests the server admitted that never got a checked 200 (goal 0)"},
	{"answered", "checked 200 replies"},
	{"refused 503", "requests that arrived during the drain, answered 503 (not admitted)"},
	{"closed unread", "requests whose connection closed before any response byte: not admitted, by the server's account"},
	{"new conns refused", "connections refused after the drain began"},
	{"drain time (max)", "the longest shutdown, from its start until every connection was closed"},
	{"drain timeout", "the endpoint's drain timeout, for comparison"},
	{"streams completed", "listen streams that ended with their completion response"},
	{"slow clients", "slowloris: connections trickling one byte at a time (half in the head, half in the body)"},
	{"cut", "slow connections the endpoint closed or answered with an error"},
	{"uncut", "slow connections still open at the end"},
	{"cut after ", "time from a slow client's first byte until it was cut"},
	{"events/s", "progress notifications per second over request-scoped event streams"},
	{"events/call", "progress notifications per call"},
	{"calls", "checked calls of the progress tool"},
	{"call p99", "p99 of one call, from send to its final response"},
	{"created/s", "tasks: tasks created per second by one caller (creations over the time they took)"},
	{"create ", "tasks: one creation, a tools/call over HTTP until its CreateTaskResult (the task is durable)"},
	{"floor ", "tasks: the database's physical floor, one plain single-row INSERT + COMMIT on the same database"},
	{"ratio", "tasks: mean creation over mean floor, in the same run (goal ≤ 2)"},
	{"completed", "tasks: tasks polled to completed after the window"},
	{"cancelled", "tasks: the share cancelled right after creation, polled to cancelled"},
	{"errors", "failed requests by kind (refused, closed, timeout, status N, jsonrpc CODE, id-mismatch…); every response is checked"},
	{"machine", fmt.Sprintf("the machine during the scenario, from /proc: the share of all CPUs' time used by other processes (busy time minus this run's process tree), the hypervisor's steal, the 1-minute load average; TOO BUSY past %.0f%% for other processes or %.0f%% of steal", 100*loadtest.MaxOtherShare, 100*loadtest.MaxStealShare)},
}

// compareGlossary explains the columns of compare's table.
var compareGlossary = []term{
	{"protocol", "the revision of the target's requests: 2026-07-28 (_meta and mirrored headers) or 2025-11-25 (the initialize era, the MCP-Protocol-Version header only); ratios compare targets of one revision"},
	{"fastmcp ÷ target", "fastmcp's rate divided by the target's (how many times faster fastmcp is)"},
	{"of ceiling", "the target's rate as a share of bare fasthttp's, which answers the same bytes with no MCP work"},
	{"target ÷ fastmcp", "the target's p99 divided by fastmcp's"},
	{"ours ÷ wrk", "our generator's rate as a share of wrk's against the same target"},
	{"server CPU/req", "the server's CPU time per request, median of the rounds"},
	{"ceiling ÷ target CPU", "bare fasthttp's CPU per request over the target's: the target's capacity relative to the ceiling, robust to other load"},
	{"allocs/req", "the server's heap allocations per request (see server allocs/request), median of the rounds"},
	{"bytes/req", "the bytes those allocations took per request, median of the rounds"},
	{"legacy/modern", "under the table: a server's 2025-11-25 median over its 2026-07-28 one (rps, server CPU and allocations per request), and round by round; fastmcp's goal is rps ≥ 0.90× and allocations ≤ 1.10×"},
	{"busy runs", "the target's runs during which the machine was TOO BUSY (see machine)"},
}

// medianTerm explains the figures of several runs.
var medianTerm = term{"median (min–max)", "the median of the runs (compare's rounds), then the lowest and highest run; ratios are of the medians"}

func (t term) matches(metric string) bool {
	if strings.HasSuffix(t.name, " ") {
		return strings.HasPrefix(metric, t.name)
	}
	return t.name == metric || (t.name == "p50" && isPercentile(metric))
}

func isPercentile(metric string) bool {
	switch metric {
	case "p50", "p90", "p99", "p99.9", "max":
		return true
	}
	return false
}

// printLegend explains the terms that r's output used.
func printLegend(w io.Writer, r *runReport) {
	used := map[string]bool{"errors": true}
	for i := range r.Reports {
		for _, m := range r.Reports[i].Metrics {
			for _, t := range glossary {
				if t.matches(m.Name) {
					used[t.name] = true
				}
			}
		}
		used["machine"] = used["machine"] || r.Reports[i].Machine != nil
	}
	fmt.Fprintln(w, "\nLegend:")
	for _, t := range glossary {
		if used[t.name] {
			writeTerm(w, t)
		}
	}
	if r.Comparison != nil {
		head := r.Comparison.table()[0]
		if len(r.Comparison.Eras) > 0 {
			head = append(head, "legacy/modern")
		}
		for _, t := range compareGlossary {
			if slices.ContainsFunc(head, func(col string) bool { return col == t.name }) {
				writeTerm(w, t)
			}
		}
	}
	if r.Comparison != nil || r.ranged() {
		writeTerm(w, medianTerm)
	}
}

// fullLegend is every term of run's reports, and of compare's table too when compare is
// set: the end of -h.
func fullLegend(compare bool) string {
	var b strings.Builder
	b.WriteString("\nTerms of the report:\n")
	terms := glossary
	if compare {
		terms = append(slices.Clip(terms), compareGlossary...)
	}
	for _, t := range append(slices.Clip(terms), medianTerm) {
		writeTerm(&b, t)
	}
	return b.String()
}

// writeTerm prints t with its text wrapped to legendWidth columns beside the name.
func writeTerm(w io.Writer, t term) {
	const nameWidth, legendWidth = 22, 100
	name := strings.TrimSpace(t.name)
	if strings.HasSuffix(t.name, " ") {
		name += " …"
	}
	line := fmt.Sprintf("  %-*s", nameWidth, name)
	indent := len([]rune(line))
	n := indent
	for i, word := range strings.Fields(t.text) {
		if i > 0 && n+1+len([]rune(word)) > legendWidth {
			line += "\n" + strings.Repeat(" ", indent)
			n = indent
		} else if i > 0 {
			line += " "
			n++
		}
		line += word
		n += len([]rune(word))
	}
	fmt.Fprintln(w, line)
}
