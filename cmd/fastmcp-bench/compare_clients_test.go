package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/bench/clientbench"
	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

// peerResultLine is a line the workers print: a clientbench.Result (its TestResultJSON
// marshals the same literal).
const peerResultLine = `{"client":"go-sdk","module":"github.com/modelcontextprotocol/go-sdk v1.8.0","protocol":"2026-07-28",` +
	`"sequential":{"callers":1,"calls":1013,"seconds":0.3,"calls_per_second":3376.5,"ns_per_call":296200,"cpu_ns_per_call":266107,"allocs_per_call":182.5,"bytes_per_call":191111},` +
	`"concurrent":{"callers":32,"calls":555,"seconds":0.3,"calls_per_second":1850,"ns_per_call":17297000,"cpu_ns_per_call":402553,"allocs_per_call":209.5,"bytes_per_call":197695}}`

func TestParseClientResult(t *testing.T) {
	r, err := parseClientResult([]byte("a log line\n" + peerResultLine + "\n\n"))
	require.NoError(t, err)
	assert.Equal(t, clientbench.Result{Client: "go-sdk", Module: "github.com/modelcontextprotocol/go-sdk v1.8.0", Protocol: "2026-07-28",
		Sequential: clientbench.Phase{Callers: 1, Calls: 1013, Seconds: 0.3, CallsPerSecond: 3376.5, NsPerCall: 296200, CPUNsPerCall: 266107, AllocsPerCall: 182.5, BytesPerCall: 191111},
		Concurrent: clientbench.Phase{Callers: 32, Calls: 555, Seconds: 0.3, CallsPerSecond: 1850, NsPerCall: 17297000, CPUNsPerCall: 402553, AllocsPerCall: 209.5, BytesPerCall: 197695}}, r)

	for name, tc := range map[string]struct{ out, err string }{
		"nothing":       {"", "the worker printed no result"},
		"unknown field": {`{"client":"x","protocol":"p","extra":1}`, `unknown field "extra"`},
		"no calls":      {`{"client":"x","protocol":"2026-07-28"}`, "has no protocol or no calls"},
		"not JSON":      {"oops", "invalid character"},
	} {
		_, err := parseClientResult([]byte(tc.out))
		assert.ErrorContains(t, err, tc.err, name)
	}
}

// fakeResult is a result whose figures are scaled from a base: rate calls/s with the
// concurrent callers, µs per call with one.
func fakeResult(protocol string, rate, us, allocs float64) clientbench.Result {
	return clientbench.Result{Protocol: protocol,
		Sequential: clientbench.Phase{Callers: 1, Calls: 100, NsPerCall: us * 1e3, CPUNsPerCall: us * 500, AllocsPerCall: allocs, BytesPerCall: 10 * allocs},
		Concurrent: clientbench.Phase{Callers: 32, Calls: 100, CallsPerSecond: rate, CPUNsPerCall: 1e9 / rate, AllocsPerCall: allocs + 1}}
}

func TestClientComparisonReport(t *testing.T) {
	c := &clientComparison{Server: "http://127.0.0.1:1/mcp", Rounds: 3, Callers: 32, Duration: time.Second, Warmup: 200 * time.Millisecond,
		Lines: clientLines, Results: map[string][]clientbench.Result{}, Machine: map[string][]*loadtest.MachineState{}}
	quiet, busy := &loadtest.MachineState{CPUs: 2, Others: 0.05}, &loadtest.MachineState{CPUs: 2, Others: 0.5}
	rounds := map[string][3]clientbench.Result{
		"fastmcp@modern": {fakeResult("2026-07-28", 30000, 40, 14), fakeResult("2026-07-28", 32000, 38, 14), fakeResult("2026-07-28", 36000, 35, 14)},
		"fastmcp@legacy": {fakeResult("2025-11-25", 33000, 30, 13), fakeResult("2025-11-25", 33000, 30, 13), fakeResult("2025-11-25", 33000, 30, 13)},
		"go-sdk@modern":  {fakeResult("2026-07-28", 2000, 300, 180), fakeResult("2026-07-28", 2000, 300, 180), fakeResult("2026-07-28", 2000, 300, 180)},
		"go-sdk@legacy":  {fakeResult("2025-11-25", 3000, 230, 100), fakeResult("2025-11-25", 3000, 230, 100), fakeResult("2025-11-25", 3000, 230, 100)},
		"mcp-go@modern":  {fakeResult("2026-07-28", 6000, 100, 230), fakeResult("2026-07-28", 6400, 100, 230), fakeResult("2026-07-28", 7000, 100, 230)},
		"mcp-go@legacy":  {fakeResult("2025-11-25", 11000, 80, 140), fakeResult("2025-11-25", 11000, 80, 140), fakeResult("2025-11-25", 11000, 80, 140)},
		// fastmcp-direct failed every round: its row says so.
		"fastmcp-oauth@modern": {fakeResult("2026-07-28", 24000, 41, 15), fakeResult("2026-07-28", 24000, 41, 15), fakeResult("2026-07-28", 24000, 41, 15)},
	}
	for _, l := range clientLines {
		rs, ok := rounds[l.key()]
		if !ok {
			continue
		}
		for i, r := range rs {
			m := quiet
			if i == 2 && l.Name == "mcp-go" {
				m = busy
			}
			c.record(l, r, m)
		}
	}
	c.summarize()

	assert.Equal(t, 32000.0, c.Summary["fastmcp@modern"].Rate, "the median of the rounds")
	assert.Equal(t, 38000.0, c.Summary["fastmcp@modern"].SeqNs)
	assert.Equal(t, 1, c.Summary["mcp-go@modern"].BusyRuns)
	require.Len(t, c.Ratios, 2, "one comparison a revision; the in-process and OAuth lines are not compared")
	assert.Equal(t, clientRatio{Protocol: "2026-07-28", Ours: "fastmcp@modern", Peer: "mcp-go@modern", Rate: 5, SeqTime: 100.0 / 38,
		CPU: (1e9 / 6400) / (1e9 / 32000), Allocs: 230.0 / 14, Goal: "ok"}, c.Ratios[0], "the faster peer of the revision, and the goal met at 5×")
	assert.Equal(t, "mcp-go@legacy", c.Ratios[1].Peer)
	assert.InDelta(t, 3.0, c.Ratios[1].Rate, 1e-9)
	assert.Equal(t, "MISSED", c.Ratios[1].Goal)

	var out bytes.Buffer
	rep := &runReport{Version: "devel", Clients: c, Elapsed: 42 * time.Second, Failures: []string{"fastmcp-direct@modern round 1: boom"}}
	printClientComparison(&out, rep)
	s := out.String()
	assert.Contains(t, s, "medians (min–max) of 3 interleaved rounds, each phase 1s measured after 200ms.")
	assert.Regexp(t, `(?m)^client\s+revision\s+1 caller: time/call\s+client CPU/call\s+allocs/call\s+bytes/call\s+32 callers: calls/s\s+client CPU/call\s+allocs/call\s+busy runs$`, s)
	assert.Regexp(t, `(?m)^fastmcp\s+2026-07-28\s+38\.0µs \(35\.0µs–40\.0µs\)\s+19\.0µs \(17\.5µs–20\.0µs\)\s+14\.0\s+140\s+32000 \(30000–36000\)\s+31\.\dµs \(27\.\dµs–33\.\dµs\)\s+15\.0\s+0 of 3$`, s)
	assert.Regexp(t, `(?m)^mcp-go, initialize pinned\s+2025-11-25\s+80\.0µs\s+40\.0µs\s+140\.0\s+1400\s+11000\s+90\.\dµs\s+141\.0\s+1 of 3$`, s)
	assert.Regexp(t, `(?m)^fastmcp in-process \(inprocess\.Connect\)\s+failed(\s+-){8}$`, s)
	assert.Contains(t, s, "  2026-07-28  fastmcp@modern against mcp-go@modern: rate 5.00× (32 callers); per call with 1 caller 2.63× less time, 16.43× fewer allocations; client CPU per call 5.00× less (32 callers); goal rate ≥ 5×: ok\n")
	assert.Contains(t, s, "  2025-11-25  fastmcp@legacy against mcp-go@legacy: rate 3.00× (32 callers);")
	assert.Contains(t, s, "goal rate ≥ 5×: MISSED\n")
	assert.Contains(t, s, "  2026-07-28  with 1 caller +3.0 µs per call (+1.5 µs client CPU), +1.0 allocations and +10 bytes per call; "+
		"32 callers: rate 0.75× of without, client CPU per call +10.4 µs\n", "the OAuth line against fastmcp@modern")
	assert.Contains(t, s, "FAILED fastmcp-direct@modern round 1: boom\n")
	assert.Contains(t, s, "Some clients failed every round")
	assert.Same(t, busy, c.busiest("mcp-go@legacy"))
}

func TestCompareClientsFlags(t *testing.T) {
	o, code := parseCompareClients([]string{"--quick", "--rounds", "3"})
	require.NotNil(t, o, "exit %d", code)
	assert.Equal(t, compareClientsOptions{rounds: 3, callers: 8, duration: 200 * time.Millisecond, warmup: 50 * time.Millisecond, quick: true}, *o,
		"--quick fills what the command line did not set")
	o, _ = parseCompareClients(nil)
	assert.Equal(t, compareClientsOptions{rounds: 3, callers: 32, duration: time.Second, warmup: 200 * time.Millisecond}, *o, "the defaults")
	for _, args := range [][]string{{"--rounds", "0"}, {"--callers", "0"}, {"--duration", "0s"}, {"extra"}, {"--bogus"}} {
		o, code := parseCompareClients(args)
		assert.Nil(t, o, "%q", args)
		assert.Equal(t, 2, code, "%q", args)
	}
	o, code = parseCompareClients([]string{"-h"})
	assert.Nil(t, o)
	assert.Equal(t, 0, code)
}

func TestWorkerArgv(t *testing.T) {
	o := &compareClientsOptions{callers: 32, warmup: 200 * time.Millisecond, duration: time.Second, cpuProfile: "/tmp/p"}
	assert.Equal(t, []string{"/peers/clients", "-client", "mcp-go", "-era", "legacy", "-callers", "32", "-warmup", "200ms", "-duration", "1s",
		"-url", "http://u/mcp", "-cpuprofile", "/tmp/p.mcp-go@legacy.prof"},
		workerArgv(o, clientLine{Name: "mcp-go", Era: "legacy", Peer: true}, "/fb", "/peers/clients", "http://u/mcp", 0))
	assert.Equal(t, []string{"/fb", "client-worker", "-client", "fastmcp", "-era", "modern", "-callers", "32", "-warmup", "200ms", "-duration", "1s",
		"-url", "http://u/mcp"}, workerArgv(o, clientLines[0], "/fb", "/peers/clients", "http://u/mcp", 1), "a profile of the first round only")
	assert.Equal(t, []string{"/fb", "client-worker", "-client", "direct", "-era", "modern", "-callers", "32", "-warmup", "200ms", "-duration", "1s"},
		workerArgv(o, clientLines[6], "/fb", "/peers/clients", "http://u/mcp", 1), "the in-process client dials nothing")
	assert.Equal(t, []string{"/fb", "client-worker", "-client", "oauth", "-era", "modern", "-callers", "32", "-warmup", "200ms", "-duration", "1s",
		"-url", "http://p/mcp"}, workerArgv(o, clientLines[7], "/fb", "/peers/clients", "http://p/mcp", 1))
}

// TestClientWorker runs the worker of the fastmcp client as compare-clients does, with short
// windows, and reads its line with the parser compare-clients uses.
func TestClientWorker(t *testing.T) {
	url, _ := startDemoServer(t)
	for _, args := range [][]string{
		{"-client", "fastmcp", "-era", "modern", "-url", url},
		{"-client", "fastmcp", "-era", "legacy", "-url", url},
		{"-client", "direct"},
	} {
		var out, errOut bytes.Buffer
		code := clientWorker(context.Background(), append(args, "-callers", "2", "-warmup", "0s", "-duration", "50ms"), &out, &errOut)
		require.Equal(t, 0, code, "%q: %s", args, errOut.String())
		r, err := parseClientResult(out.Bytes())
		require.NoError(t, err, "%q", args)
		assert.Equal(t, args[1], r.Client)
		want := "2026-07-28"
		if strings.Contains(strings.Join(args, " "), "legacy") {
			want = "2025-11-25"
		}
		assert.Equal(t, want, r.Protocol, "%q", args)
		assert.Equal(t, 2, r.Concurrent.Callers)
	}
	var out, errOut bytes.Buffer
	assert.Equal(t, 1, clientWorker(context.Background(), []string{"-client", "fastmcp", "-url", closedURL(t)}, &out, &errOut))
	assert.Contains(t, errOut.String(), "client-worker: ")
	errOut.Reset()
	assert.Equal(t, 1, clientWorker(context.Background(), []string{"-client", "other"}, &out, &errOut))
	assert.Equal(t, "client-worker: -client fastmcp, oauth or direct, not \"other\"\n", errOut.String())
}

// TestCompareClientsQuick is a short real run: every client, peers included, against one
// served fastmcp, and the revision each negotiated.
func TestCompareClientsQuick(t *testing.T) {
	bin := build(t)
	peersDir, err := filepath.Abs(filepath.Join("..", "..", "bench", "peers"))
	require.NoError(t, err)
	js := filepath.Join(t.TempDir(), "c.json")
	code, out, errOut := runBench(t, bin, "compare-clients", "--quick", "--rounds", "1", "--duration", "100ms", "--peers-dir", peersDir, "--json", js)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
	c := readReport(t, js).Clients
	require.NotNil(t, c)
	want := map[string]string{"fastmcp@modern": "2026-07-28", "fastmcp@legacy": "2025-11-25", "go-sdk@modern": "2026-07-28",
		"go-sdk@legacy": "2025-11-25", "mcp-go@modern": "2026-07-28", "mcp-go@legacy": "2025-11-25", "fastmcp-direct@modern": "2026-07-28", "fastmcp-oauth@modern": "2026-07-28"}
	for key, protocol := range want {
		s, ok := c.Summary[key]
		require.True(t, ok, key)
		assert.Equal(t, protocol, s.Protocol, "%s negotiates %s with our server", key, protocol)
		assert.Positive(t, s.Rate, key)
		assert.Positive(t, s.SeqAllocs, key)
	}
	assert.Len(t, c.Ratios, 2)
	assert.Regexp(t, `(?m)^  2026-07-28  fastmcp@modern against (go-sdk|mcp-go)@modern: rate \d+\.\d\d× \(8 callers\);`, out)
	assert.Regexp(t, `(?m)^  2026-07-28  with 1 caller [+-]\d+\.\d µs per call`, out, "the OAuth path's cost, printed")
	assert.Regexp(t, `(?m)^round 1/1  go-sdk@legacy\s+2025-11-25: `, errOut, "a progress line per client")
	assert.Regexp(t, `(?m)^(Machine over the whole run: load .* on \d+ CPUs|Machine state not measured)`, out)
}
