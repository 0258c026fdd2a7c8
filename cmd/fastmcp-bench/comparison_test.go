package main

import (
	"encoding/json"
	"errors"
	"flag"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
	"github.com/fastmcp-go/fastmcp/internal/wireschema"
)

// newComparison is three rounds of three targets with both generators, as compare records
// them.
func newComparison() *comparison {
	c := &comparison{Metric: "rps", Rounds: 3, Targets: []string{nameFastmcp, nameCeiling, "go-sdk"}, Generators: []string{"ours", "wrk"},
		Samples: map[string]map[string][]float64{}, Medians: map[string]map[string]float64{}}
	quiet, busy := &loadtest.MachineState{Others: 0.1}, &loadtest.MachineState{Others: 0.5}
	for round, s := range []struct{ fast, ceil, sdk float64 }{{120000, 150000, 3000}, {90000, 140000, 2900}, {125000, 155000, 3100}} {
		m := quiet
		if round == 1 {
			m = busy
		}
		c.record("ours", nameFastmcp, s.fast, &loadtest.ThroughputResult{ServerCPU: 25000}, m)
		c.record("ours", nameCeiling, s.ceil, &loadtest.ThroughputResult{ServerCPU: 18000}, m)
		c.record("ours", "go-sdk", s.sdk, &loadtest.ThroughputResult{ServerCPU: 540000}, m)
		c.record("wrk", nameFastmcp, s.fast+5000, nil, nil)
		c.record("wrk", nameCeiling, s.ceil+5000, nil, nil)
		c.record("wrk", "go-sdk", s.sdk+100, nil, nil)
	}
	c.summarize()
	return c
}

// TestComparisonTable: every value is the median with the range of the rounds, and the
// header and ratios say which.
func TestComparisonTable(t *testing.T) {
	c := newComparison()
	rows := c.table()
	require.Len(t, rows, 4)
	assert.Equal(t, []string{"target", "protocol", "rps (ours)", "fastmcp ÷ target", "of ceiling", "rps (wrk)", "fastmcp ÷ target", "of ceiling",
		"ours ÷ wrk", "server CPU/req", "ceiling ÷ target CPU", "busy runs"}, rows[0])
	assert.Equal(t, []string{"fastmcp", "2026-07-28", "120000 req/s (90000–125000)", "1.00×", "80.0%", "125000 req/s (95000–130000)", "1.00×", "80.6%",
		"96.0%", "25.0µs", "72.0%", "1 of 3"}, rows[1])
	assert.Equal(t, "40.00×", rows[3][3])
	assert.Equal(t, "540µs", rows[3][9], "the same CPU in every round: no range")

	var b strings.Builder
	printComparison(&b, c)
	out := b.String()
	assert.Contains(t, out, "medians (min–max) of 3 interleaved rounds; ratios are of the medians, within one protocol revision")
	assert.Contains(t, out, "fastmcp 2026-07-28 reaches 80.0% of the bare fasthttp ceiling (medians; 64.3%–80.6% round by round; goal ≥ 75%): ok")
	assert.Contains(t, out, "our generator reaches 96.8% of wrk against the ceiling (medians; goal ≥ 90%): ok")

	// A latency comparison: p99 medians, with their range.
	l := &comparison{Metric: "p99", Rounds: 2, Targets: []string{nameFastmcp}, Generators: []string{"ours"},
		Samples: map[string]map[string][]float64{}, Medians: map[string]map[string]float64{}}
	l.record("ours", nameFastmcp, 1.2e6, nil, nil)
	l.record("ours", nameFastmcp, 1.6e6, nil, nil)
	l.summarize()
	assert.Equal(t, []string{"fastmcp", "2026-07-28", "p99 1.40ms (1.20ms–1.60ms)", "1.00×"}, l.table()[1])
}

// TestCompareReportMedians: the per-target tables of compare show the median of the rounds
// with their range (not the last round), labelled as such.
func TestCompareReportMedians(t *testing.T) {
	var rounds []loadtest.Report
	for _, rps := range []float64{54600, 14900, 36200} {
		rounds = append(rounds, (&loadtest.ThroughputResult{Target: nameFastmcp, RPS: rps, Connections: 32}).Report())
	}
	r := &runReport{Version: "devel", Target: "x", Comparison: newComparison()}
	r.add(loadtest.MedianReport(rounds, "rps"), nil)
	var b strings.Builder
	printReport(&b, r)
	printLegend(&b, r)
	out := b.String()
	assert.Regexp(t, `VALUE: median \(min–max\) of the runs`, out)
	assert.Regexp(t, `rps\s+36\.2k req/s \(14\.9k–54\.6k\)`, out)
	assert.NotContains(t, out, "14.9k req/s ", "not one round's figure alone")
	assert.Regexp(t, `(?m)^  median \(min–max\)\s+the median of the runs`, out)
	assert.Regexp(t, `(?m)^  busy runs\s+the target's runs`, out)
	assert.Regexp(t, `(?m)^  ours ÷ wrk\s+our generator`, out)
	assert.NotContains(t, out, "target ÷ fastmcp", "a column of latency comparisons only")
}

// newEraComparison is two rounds of fastmcp, the ceiling and go-sdk, each in both
// revisions, with allocations, as compare records them; mcp-go serves only the legacy path.
func newEraComparison() *comparison {
	c := &comparison{Metric: "rps", Rounds: 2, Generators: []string{"ours"},
		Samples: map[string]map[string][]float64{}, Medians: map[string]map[string]float64{}}
	type run struct {
		rps, cpu, allocs, bytes float64
	}
	figures := []struct {
		server string
		d      loadtest.Dialect
		rounds [2]run
	}{
		{nameFastmcp, loadtest.Dialect2026, [2]run{{100000, 20000, 2.0, 170}, {90000, 22000, 2.2, 174}}},
		{nameFastmcp, loadtest.DialectLegacy, [2]run{{96000, 21000, 2.1, 150}, {88000, 23000, 2.1, 152}}},
		{nameCeiling, loadtest.Dialect2026, [2]run{{125000, 16000, 0.01, 1}, {120000, 16000, 0.01, 1}}},
		{nameCeiling, loadtest.DialectLegacy, [2]run{{128000, 15000, 0.004, 0}, {118000, 15000, 0.004, 0}}},
		{"go-sdk", loadtest.Dialect2026, [2]run{{2000, 700000, 334, 490 << 10}, {1800, 720000, 335, 490 << 10}}},
		{"go-sdk", loadtest.DialectLegacy, [2]run{{3000, 480000, 211, 365 << 10}, {2700, 490000, 212, 365 << 10}}},
	}
	for _, f := range figures {
		c.addTarget(f.server, f.d)
	}
	c.notServed(c.addTarget("mcp-go", loadtest.Dialect2026), errors.New("status 400"))
	c.addTarget("mcp-go", loadtest.DialectLegacy)
	for round := range 2 {
		for _, f := range figures {
			r := f.rounds[round]
			key := targetKey(f.server, f.d)
			c.record("ours", key, r.rps, &loadtest.ThroughputResult{ServerCPU: time.Duration(r.cpu)}, nil)
			c.recordAllocs(key, r.allocs, r.bytes)
		}
		c.record("ours", "mcp-go@2025-11-25", 9000, &loadtest.ThroughputResult{ServerCPU: 80000}, nil)
	}
	c.summarize()
	return c
}

// TestComparisonEras: each server has a row per revision, ratios stay within a revision,
// a target that failed its check says so, and the legacy/modern lines divide each server's
// two paths (fastmcp's with its goal).
func TestComparisonEras(t *testing.T) {
	c := newEraComparison()
	assert.Equal(t, []string{"fastmcp", "fastmcp@2025-11-25", "bare-fasthttp", "bare-fasthttp@2025-11-25", "go-sdk", "go-sdk@2025-11-25",
		"mcp-go", "mcp-go@2025-11-25"}, c.Targets)
	rows := c.table()
	require.Len(t, rows, 9)
	assert.Equal(t, []string{"target", "protocol", "rps (ours)", "fastmcp ÷ target", "of ceiling", "server CPU/req", "ceiling ÷ target CPU",
		"allocs/req", "bytes/req"}, rows[0])
	assert.Equal(t, []string{"fastmcp", "2025-11-25", "92000 req/s (88000–96000)", "1.00×", "74.8%", "22.0µs (21.0µs–23.0µs)", "68.2%",
		"2.1", "151 B (150 B–152 B)"}, rows[2], "legacy fastmcp over the legacy ceiling")
	assert.Equal(t, []string{"go-sdk", "2025-11-25", "2850 req/s (2700–3000)", "32.28×", "2.3%", "485µs (480µs–490µs)", "3.1%",
		"211.5 (211.0–212.0)", "365 KiB"}, rows[6])
	assert.Equal(t, []string{"mcp-go", "2026-07-28", "not served", "-", "-", "-", "-", "-", "-"}, rows[7])
	assert.Equal(t, []string{"mcp-go", "2025-11-25", "9000 req/s", "10.22×", "7.3%", "80.0µs", "18.8%", "-", "-"}, rows[8],
		"a --target without pprof: no allocations")

	eras := c.eraRatios()
	require.Len(t, eras, 4)
	f := eras[0]
	assert.Equal(t, nameFastmcp, f.Server)
	assert.InDelta(t, 92000.0/95000, f.Value, 1e-9)
	assert.InDeltaSlice(t, []float64{0.96, 88000.0 / 90000}, f.Rounds, 1e-9, "legacy over modern round by round")
	assert.InDelta(t, 1.0, f.Allocs, 1e-9, "2.1 allocs on both paths")
	assert.Equal(t, "ok", f.Goal)
	assert.Empty(t, eras[2].Goal, "only fastmcp has the goal")
	assert.Zero(t, eras[1].Allocs, "the ceiling's near-zero allocations have no ratio")
	assert.Equal(t, "2026-07-28 not served", eras[3].Missing)

	var b strings.Builder
	printComparison(&b, c)
	out := b.String()
	assert.Contains(t, out, "mcp-go 2026-07-28 not served: status 400\n")
	assert.Contains(t, out, "legacy/modern: each server's 2025-11-25 tools/call over its 2026-07-28 one (ratios of the medians; round by round in brackets):\n"+
		"  fastmcp        rps 0.97× (0.96–0.98), server CPU/req 1.05×, allocs/req 1.00× (2.1 vs 2.1); goal rps ≥ 0.90× and allocs/req ≤ 1.10×: ok\n"+
		"  bare-fasthttp  rps 1.00× (0.98–1.02), server CPU/req 0.94×, allocs/req 0.0 vs 0.0\n"+
		"  go-sdk         rps 1.50× (1.50–1.50), server CPU/req 0.68×, allocs/req 0.63× (211.5 vs 334.5)\n"+
		"  mcp-go         no ratio: 2026-07-28 not served\n")
	assert.Contains(t, out, "fastmcp 2026-07-28 reaches 77.6% of the bare fasthttp ceiling (medians; 75.0%–80.0% round by round; goal ≥ 75%): ok")
	assert.Contains(t, out, "fastmcp 2025-11-25 reaches 74.8% of the bare fasthttp ceiling (medians; 74.6%–75.0% round by round; goal ≥ 75%): MISSED")

	var page strings.Builder
	require.NoError(t, writeHTML(&page, &runReport{Command: "compare throughput", Comparison: c}))
	assert.Contains(t, page.String(), "<pre>mcp-go 2026-07-28 not served: status 400\n\nlegacy/modern: each server&#39;s 2025-11-25 tools/call")
	assert.Contains(t, page.String(), "<th>protocol</th>")

	js, err := json.Marshal(c)
	require.NoError(t, err)
	var back comparison
	require.NoError(t, json.Unmarshal(js, &back))
	assert.Equal(t, c.Eras, back.Eras, "the JSON has the legacy/modern ratios")
	assert.Equal(t, "fastmcp@2025-11-25", back.Targets[1])
	assert.Equal(t, "2025-11-25", back.Protocol["fastmcp@2025-11-25"])

	var legend strings.Builder
	printLegend(&legend, &runReport{Comparison: c})
	assert.Regexp(t, `(?m)^  legacy/modern\s+under the table`, legend.String())
	assert.Regexp(t, `(?m)^  protocol\s+the revision`, legend.String())
	assert.Regexp(t, `(?m)^  allocs/req\s+the server's heap allocations`, legend.String())
}

// TestEraGoal: fastmcp's legacy path may cost 10% of throughput and 10% more allocations.
func TestEraGoal(t *testing.T) {
	for _, tc := range []struct {
		r    eraRatio
		want string
	}{
		{eraRatio{Value: 0.90, LegacyAllocs: 11, ModernAllocs: 10}, "ok"},
		{eraRatio{Value: 0.89, LegacyAllocs: 10, ModernAllocs: 10}, "MISSED"},
		{eraRatio{Value: 1.2, LegacyAllocs: 11.2, ModernAllocs: 10}, "MISSED"},
		{eraRatio{Value: 0.95}, "rps ok, allocations not measured"},
		{eraRatio{Value: 0.5}, "MISSED"},
		{eraRatio{Missing: "2025-11-25 not served"}, "MISSED (2025-11-25 not served)"},
	} {
		assert.Equal(t, tc.want, tc.r.eraGoal("rps"), "%+v", tc.r)
	}
	assert.Empty(t, (&eraRatio{Value: 1}).eraGoal("p99"), "the goal is on throughput")
}

// TestHeapCounters: the counters are read from the end of a debug=1 heap profile, and one
// reading's own cost is taken off.
func TestHeapCounters(t *testing.T) {
	profile := "heap profile: 3: 288 [25: 4000] @ heap/1048576\n1: 96 [1: 96] @ 0x1 0x2\n\n# runtime.MemStats\n# Alloc = 1\n" +
		"# TotalAlloc = 5242880\n# Sys = 9\n# Lookups = 0\n# Mallocs = 40000\n# Frees = 100\n# HeapAlloc = 1\n"
	h, err := parseHeapCounters(strings.NewReader(profile))
	require.NoError(t, err)
	assert.Equal(t, heapCounters{objects: 40000, bytes: 5242880}, h)
	_, err = parseHeapCounters(strings.NewReader("heap profile: 0: 0 [0: 0] @ heap/1\n"))
	require.EqualError(t, err, "the heap profile has no # Mallocs and # TotalAlloc lines")

	objs, b, err := allocsPerRequest(heapCounters{1000, 100000}, heapCounters{3100, 300200}, heapCounters{3200, 300400}, 1000)
	require.NoError(t, err)
	assert.InDelta(t, 2.0, objs, 1e-9, "(3100-1000-100)/1000")
	assert.InDelta(t, 200.0, b, 1e-9)
	_, _, err = allocsPerRequest(heapCounters{5000, 1}, heapCounters{10, 2}, heapCounters{20, 3}, 10)
	require.Error(t, err)
}

// TestCompareFlags: --dialects takes each revision once; --quick fills in what the command
// line left unset.
func TestCompareFlags(t *testing.T) {
	ds, err := parseCompareDialects("2026-07-28, legacy")
	require.NoError(t, err)
	assert.Equal(t, []loadtest.Dialect{loadtest.Dialect2026, loadtest.DialectLegacy}, ds)
	_, err = parseCompareDialects("2025-11-25,2025-11-25")
	require.EqualError(t, err, "2025-11-25 given twice")
	_, err = parseCompareDialects("1999-01-01")
	require.Error(t, err)
	_, err = parseCompareDialects(" , ")
	require.EqualError(t, err, "no revision given")

	o := compareOptions{rounds: 3, duration: 5 * time.Second, warmup: time.Second, connections: 32, goals: true}
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.IntVar(&o.rounds, "rounds", 3, "")
	fs.IntVar(&o.connections, "connections", 32, "")
	require.NoError(t, fs.Parse([]string{"--rounds", "5"}))
	o.applyQuick(fs)
	assert.Equal(t, 5, o.rounds, "set on the command line: kept")
	assert.Equal(t, 4, o.connections)
	assert.Equal(t, 300*time.Millisecond, o.duration)
	assert.Equal(t, 100*time.Millisecond, o.warmup)
	assert.False(t, o.goals)
}

// TestComparePeersQuick is a short real run: fastmcp and the peers of bench/peers, each in
// both revisions, in one compare.
func TestComparePeersQuick(t *testing.T) {
	bin := build(t)
	peersDir, err := filepath.Abs(filepath.Join("..", "..", "bench", "peers"))
	require.NoError(t, err)
	js := filepath.Join(t.TempDir(), "c.json")
	code, out, errOut := runBench(t, bin, "compare", "--quick", "--peers", "--peers-dir", peersDir, "--json", js)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
	c := readReport(t, js).Comparison
	require.NotNil(t, c)
	assert.Equal(t, []string{"fastmcp", "fastmcp@2025-11-25", "bare-fasthttp", "bare-fasthttp@2025-11-25", "mcp-go", "mcp-go@2025-11-25",
		"go-sdk", "go-sdk@2025-11-25"}, c.Targets)
	assert.Empty(t, c.NotServed, "every server serves both revisions")
	for _, target := range c.Targets {
		assert.Positive(t, c.Medians["ours"][target], target)
		assert.Len(t, c.Allocs[target], 2, "%s: allocations read from its pprof endpoint in each round", target)
	}
	for _, s := range []string{"mcp-go", "go-sdk"} {
		assert.Greater(t, c.AllocMedians[s], 10.0, "%s allocates on every request", s)
	}
	require.Len(t, c.Eras, 4)
	assert.Equal(t, nameFastmcp, c.Eras[0].Server)
	assert.Positive(t, c.Eras[0].Value)
	assert.Positive(t, c.Eras[0].ModernAllocs)
	assert.NotEmpty(t, c.Eras[0].Goal, "fastmcp's goal is judged (ok or MISSED: a quick run on a shared machine proves no figure)")
	assert.Regexp(t, `(?m)^legacy/modern: each server's 2025-11-25 tools/call over its 2026-07-28 one`, out)
	assert.Regexp(t, `(?m)^  go-sdk\s+rps \d+\.\d\d× \(.*\), server CPU/req \d+\.\d\d×, allocs/req \d+\.\d\d×`, out)
	assert.Regexp(t, `(?m)^  fastmcp\s+.*; goal rps ≥ 0\.90× and allocs/req ≤ 1\.10×: `, out)
}

// TestWrkScripts: wrk sends each revision's call, valid against that revision's schema,
// with the headers our generator sends.
func TestWrkScripts(t *testing.T) {
	body := regexp.MustCompile(`(?m)^wrk\.body = '(.*)'$`)
	for _, tc := range []struct {
		script, rev string
		headers     []string
	}{
		{wrkScript, loadtest.ProtocolVersion, []string{`["MCP-Protocol-Version"] = "2026-07-28"`, `["Mcp-Method"] = "tools/call"`, `["Mcp-Name"] = "echo"`}},
		{wrkLegacyScript, loadtest.LegacyVersion, []string{`["MCP-Protocol-Version"] = "2025-11-25"`}},
	} {
		m := body.FindStringSubmatch(tc.script)
		require.Len(t, m, 2, tc.rev)
		wireschema.RequireValidRev(t, tc.rev, "CallToolRequest", []byte(m[1]))
		for _, h := range tc.headers {
			assert.Contains(t, tc.script, h)
		}
	}
	assert.NotContains(t, wrkLegacyScript, "Mcp-Method", "a legacy client mirrors nothing")
}

// TestCompareStacks: --stacks names a fastmcp server per stack, each judged by the goal.
func TestCompareStacks(t *testing.T) {
	st, err := parseStacks("fasthttp, fasthttp-mount")
	require.NoError(t, err)
	assert.Equal(t, []string{"fasthttp", "fasthttp-mount"}, st)
	_, err = parseStacks("nethttp,nethttp")
	require.EqualError(t, err, "nethttp given twice")
	_, err = parseStacks("h2")
	require.EqualError(t, err, `unknown stack "h2" (fasthttp, nethttp, fasthttp-mount)`)
	assert.Equal(t, nameFastmcp, stackServer("fasthttp"))
	assert.Equal(t, "fastmcp-nethttp", stackServer("nethttp"))

	mount := eraRatio{Server: "fastmcp-fasthttp-mount", Value: 0.8, LegacyAllocs: 9.1, ModernAllocs: 8.1}
	assert.Equal(t, "MISSED", mount.marked("rps").Goal)
	assert.Empty(t, eraRatio{Server: "go-sdk", Value: 1}.marked("rps").Goal)
}

// The ceiling check: pinned, the bare server's median share of its core tells whether its
// rate was its own limit or the generator's; unpinned it only reports the shares.
func TestCeilingCheck(t *testing.T) {
	ceiling := func(pinned bool, cores ...float64) string {
		c := &comparison{Metric: "rps", Pinned: pinned, Targets: []string{nameCeiling}, Generators: []string{"ours"},
			Samples: map[string]map[string][]float64{}, Medians: map[string]map[string]float64{}}
		for _, v := range cores {
			c.record("ours", nameCeiling, 1e5, &loadtest.ThroughputResult{ServerCPU: 5000, ServerCores: v, GeneratorCores: 0.8}, nil)
		}
		c.summarize()
		return c.ceilingCheck(nameCeiling)
	}
	assert.Equal(t, "the ceiling is the server's: bare fasthttp used 99% of its core (goal ≥ 95%), our generator 80% of its own: ok", ceiling(true, 0.97, 0.99, 1.0))
	assert.Contains(t, ceiling(true, 0.7, 0.72, 0.99), "NOT THE SERVER'S CEILING: bare fasthttp used only 72% of its core")
	assert.Contains(t, ceiling(false, 0.7), "not pinned")
	assert.Empty(t, (&comparison{}).ceilingCheck(nameCeiling), "not measured: nothing said")
}

// The checked wrk run fails unless it saw replies and none was bad.
func TestParseWrkCheck(t *testing.T) {
	assert.NoError(t, parseWrkCheck([]byte("Requests/sec: 1\nfastmcp-check: seen 120 bad 0\n")))
	assert.ErrorContains(t, parseWrkCheck([]byte("fastmcp-check: seen 120 bad 3\n")), "3 of 120 replies were not the echo")
	assert.ErrorContains(t, parseWrkCheck([]byte("fastmcp-check: seen 0 bad 0\n")), "0 of 0")
	assert.ErrorContains(t, parseWrkCheck([]byte("Requests/sec: 1\n")), "no fastmcp-check line")
}
