package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

// parseGateway parses a compare command line up to checkGatewayFlags, as compareCmd does.
func parseGateway(t *testing.T, args ...string) error {
	t.Helper()
	var o compareOptions
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.flags(fs)
	pos, err := parseInterleaved(fs, args)
	require.NoError(t, err)
	return checkGatewayFlags(fs, pos)
}

func TestCompareGatewayFlags(t *testing.T) {
	assert.NoError(t, parseGateway(t, "--gateway"))
	assert.NoError(t, parseGateway(t, "throughput", "--gateway", "--quick", "--dialects", "2025-11-25"))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"latency", "--gateway"}, `--gateway measures throughput only (got ["latency"])`},
		{[]string{"--gateway", "--peers", "--connections", "4"}, "not with --connections, --peers"},
		{[]string{"--gateway", "--json", "x.json"}, "not with --json"},
	} {
		err := parseGateway(t, tc.args...)
		if assert.Error(t, err, tc.args) {
			assert.Contains(t, err.Error(), tc.want, tc.args)
		}
	}
}

func TestParseConnectionList(t *testing.T) {
	got, err := parseConnectionList("1, 8,32")
	require.NoError(t, err)
	assert.Equal(t, []int{1, 8, 32}, got)
	for _, bad := range []string{"", "0", "-1", "8,x", "1,1", "1025"} {
		_, err := parseConnectionList(bad)
		assert.ErrorContains(t, err, "want distinct connection counts from 1 to 1024", bad)
	}
}

func TestCheckGatewayNPM(t *testing.T) {
	for _, ok := range []string{gatewayNPMInstall, gatewayNPMInstalled, gatewayNPMOff} {
		assert.NoError(t, checkGatewayNPM(ok))
	}
	assert.EqualError(t, checkGatewayNPM("yes"), `--gateway-npm install, installed or off (got "yes")`)
}

// TestCompareGatewayUsageErrors: the gateway's flags are refused before anything starts.
func TestCompareGatewayUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--gateway", "--gateway-npm", "yes"},
		{"--gateway", "--dialects", "2024-01-01"},
		{"--gateway", "--gateway-connections", "0"},
		{"--gateway-connections", "1"},
		{"--gateway-npm", "off"},
	} {
		assert.Equal(t, 2, compareCmd(context.Background(), args), args)
	}
}

// gatewayTestRow is a row measured in rounds with the given req/s and CPU per call (ns).
func gatewayTestRow(name string, d loadtest.Dialect, conns int, rps []float64, cpu ...float64) *gatewayRow {
	r := newGatewayRow(name, loadtest.Target{Dialect: d}, "")
	r.rps[conns] = rps
	r.cpu[conns] = cpu
	for range rps {
		r.p50[conns] = append(r.p50[conns], float64(250*time.Microsecond))
		r.p99[conns] = append(r.p99[conns], float64(2*time.Millisecond))
	}
	return r
}

func TestGatewayTable(t *testing.T) {
	legacy, modern := loadtest.DialectLegacy, loadtest.Dialect2026
	rows := []*gatewayRow{
		gatewayTestRow(nameGwDirect, legacy, 32, []float64{100000, 120000, 110000}, 8000, 9000, 7000),
		gatewayTestRow(nameGwDirect, modern, 32, []float64{90000}, 8000),
		gatewayTestRow(nameGwStdio, legacy, 32, []float64{40000, 30000}, 30000, 34000),
		gatewayTestRow(nameGwSupergateway, legacy, 32, []float64{1000}, 900000),
		gatewayTestRow(nameGwMCPProxy, legacy, 32, []float64{2000}, 1000000),
		gatewayTestRow(nameGwMCPProxy, modern, 32, nil),
	}
	rows[0].busy[32] = 1
	var b bytes.Buffer
	printGatewayTable(&b, rows, []int{32})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 8, b.String())
	fields := func(i int) []string {
		return strings.Fields(strings.NewReplacer("fastmcp backend, direct", "direct", " → ", "→").Replace(lines[i]))
	}
	assert.Equal(t, []string{"endpoint", "revision", "conns", "req/s", "min–max", "p50", "p99", "CPU/call", "vs", "direct", "vs", "faster", "npm", "busy", "runs"}, fields(1))
	assert.Equal(t, []string{"direct", "2025-11-25", "32", "110000", "100000–120000", "250µs", "2ms", "8µs", "1.00×", "55.0×", "1/3"}, fields(2))
	assert.Equal(t, []string{"direct", "2026-07-28", "32", "90000", "90000–90000", "250µs", "2ms", "8µs", "1.00×", "-", "0/1"}, fields(3))
	assert.Equal(t, []string{"gateway→stdio", "2025-11-25", "32", "35000", "30000–40000", "250µs", "2ms", "32µs", "0.32×", "17.5×", "0/2"}, fields(4))
	assert.Equal(t, []string{"supergateway→stdio", "2025-11-25", "32", "1000", "1000–1000", "250µs", "2ms", "900µs", "0.01×", "0.5×", "0/1"}, fields(5))
	assert.Equal(t, []string{"mcp-proxy→stdio", "2025-11-25", "32", "2000", "2000–2000", "250µs", "2ms", "1ms", "0.02×", "1.0×", "0/1"}, fields(6))
	assert.Equal(t, []string{"mcp-proxy→stdio", "2026-07-28", "32", "not", "measured", "-", "-", "-", "-", "-", "-", "0/0"}, fields(7))
}

func TestGatewayGoals(t *testing.T) {
	legacy, modern := loadtest.DialectLegacy, loadtest.Dialect2026
	rows := []*gatewayRow{
		gatewayTestRow(nameGwDirect, legacy, 8, []float64{100000}, 8000),
		gatewayTestRow(nameGwDirect, modern, 8, []float64{100000}, 10000),
		gatewayTestRow(nameGwHTTP, legacy, 8, []float64{30000}, 24000),
		gatewayTestRow(nameGwHTTP, modern, 8, []float64{30000}, 16000),
		gatewayTestRow(nameGwStdio, legacy, 8, []float64{40000}),
		gatewayTestRow(nameGwSupergateway, legacy, 8, []float64{1000}),
		gatewayTestRow(nameGwMCPProxy, legacy, 8, []float64{2500}),
		gatewayTestRow(nameGwMCPProxy, modern, 8, []float64{9000}), // another revision: not the stdio goal's
	}
	rows[2].cpu[1] = []float64{30000} // a second connection count counts in the CPU median
	same := []*sameRateCPU{
		{dialect: legacy, rate: 24000, conns: 8, gw: []float64{30000, 27000, 28000}, direct: []float64{10000, 11000, 12000}, busy: 1, rounds: 3},
		{dialect: modern, rate: 24000, conns: 8, gw: []float64{27000}, direct: []float64{20000}, rounds: 1},
	}
	var b bytes.Buffer
	printGatewayGoals(&b, rows, []int{1, 8}, same)
	assert.Equal(t, `
Goal: gateway → stdio 40000 req/s against the faster npm gateway's 2500 (2025-11-25, 8 connections): 16.0× (goal ≥ 20×): NOT MET
Goal: gateway → fastmcp CPU per call 28µs against the backend's own 11µs, both at 24000 req/s open loop on 8 connections (2025-11-25, medians of 3 rounds, 1 busy runs): 2.55× (goal ≤ 2×): NOT MET
      each at its own maximum (closed loop, the table's CPU/call): 27µs against 8µs, 3.38× (the backend's maximum rate is several times the gateway's)
Goal: gateway → fastmcp CPU per call 27µs against the backend's own 20µs, both at 24000 req/s open loop on 8 connections (2026-07-28, medians of 1 rounds, 0 busy runs): 1.35× (goal ≤ 2×): met
      each at its own maximum (closed loop, the table's CPU/call): 16µs against 10µs, 1.60× (the backend's maximum rate is several times the gateway's)
`, b.String())

	b.Reset()
	printGatewayGoals(&b, rows[:5], []int{8}, nil)
	assert.Contains(t, b.String(), "Goal: gateway → stdio ≥ 20× the faster npm gateway (2025-11-25, 8 connections): not judged (not both measured)\n")
	b.Reset()
	printGatewayGoals(&b, []*gatewayRow{gatewayTestRow(nameGwStdio, legacy, 8, []float64{40000}), gatewayTestRow(nameGwMCPProxy, legacy, 8, []float64{1000})}, []int{8},
		[]*sameRateCPU{{dialect: legacy, rate: 1000, conns: 8, gw: []float64{1000}}}) // no direct figure: not judged
	assert.Equal(t, `
Goal: gateway → stdio 40000 req/s against the faster npm gateway's 1000 (2025-11-25, 8 connections): 40.0× (goal ≥ 20×): met
Goal: gateway CPU per call ≤ 2× a fastmcp server's: not judged (no CPU figures at one rate)
`, b.String())
}

func TestNPMGatewayArgv(t *testing.T) {
	tools := npmToolsIn("/r/.tools")
	stdio := []string{"/bin/fastmcp-bench", "serve", "--stdio"}
	got := map[string][]string{}
	for _, s := range npmGatewaySpecs {
		got[s.name] = s.argv(tools, 4000, stdio)
	}
	assert.Equal(t, map[string][]string{
		nameGwSupergateway: {"/r/.tools/node_modules/node/bin/node", "/r/.tools/node_modules/supergateway/dist/index.js",
			"--stdio", "/bin/fastmcp-bench serve --stdio", "--outputTransport", "streamableHttp", "--stateful", "--port", "4000", "--logLevel", "none"},
		nameGwMCPProxy: {"/r/.tools/node_modules/node/bin/node", "/r/.tools/node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs",
			"--port", "4000", "--host", "127.0.0.1", "--", "/bin/fastmcp-bench", "serve", "--stdio"},
	}, got)
}

// TestNPMGatewayToolsNotInstalled: without .tools/ and without leave to install, a clear
// error and nothing run.
func TestNPMGatewayToolsNotInstalled(t *testing.T) {
	root := t.TempDir()
	peers := filepath.Join(root, "bench", "peers")
	require.NoError(t, os.MkdirAll(peers, 0o755))
	_, err := npmGatewayTools(context.Background(), peers, false, newLiveLine(os.Stderr))
	assert.EqualError(t, err, "not installed in "+filepath.Join(root, ".tools")+" (--gateway-npm install installs them)")
	assert.NoDirExists(t, filepath.Join(root, ".tools"))
}

// TestCompareGatewayQuick is one short real run of fastmcp's endpoints in both revisions, and
// of the npm gateways when .tools/ has them (it installs nothing).
func TestCompareGatewayQuick(t *testing.T) {
	bin := build(t)
	peers, err := findPeersDir()
	require.NoError(t, err)
	npm := present(func() []string {
		tl := npmToolsIn(filepath.Join(filepath.Dir(filepath.Dir(peers)), ".tools"))
		return []string{tl.node, tl.supergateway, tl.mcpProxy}
	}()...)
	code, out, errOut := runBench(t, bin, "compare", "--gateway", "--gateway-npm", gatewayNPMInstalled, "--rounds", "1",
		"--duration", "200ms", "--warmup", "50ms", "--gateway-connections", "1,8")
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
	rows := []string{nameGwDirect, nameGwHTTP, nameGwStdio}
	if npm {
		rows = append(rows, nameGwSupergateway, nameGwMCPProxy)
	} else {
		t.Log("npm gateways skipped: .tools/ has no supergateway or mcp-proxy (run interop/run.sh or compare --gateway once)")
		assert.Contains(t, out, nameGwSupergateway+": not measured: not installed in ")
		assert.Contains(t, out, nameGwMCPProxy+": not measured: not installed in ")
	}
	for _, name := range rows {
		for _, rev := range []string{loadtest.ProtocolVersion, loadtest.LegacyVersion} {
			for _, conns := range []string{"1", "8"} {
				re := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(name) + `\s+` + rev + `\s+` + conns + `\s+(\d+)\s+\S+\s+(\S+)\s+(\S+)\s+(\S+)\s`)
				m := re.FindStringSubmatch(out)
				if !assert.NotNil(t, m, "%s %s at %s connections in:\n%s", name, rev, conns, out) {
					continue
				}
				if name == nameGwSupergateway || name == nameGwMCPProxy {
					continue // a few hundred calls a second at best: a 200 ms window on a busy machine may hold none
				}
				rps, _ := strconv.Atoi(m[1])
				assert.Positive(t, rps, m[0])
				for i, cell := range m[2:] { // p50, p99, CPU per call
					if i == 2 && cell == "-" {
						continue // /proc counts CPU in 10 ms ticks: a 200 ms run of a slow row may read none
					}
					d, err := time.ParseDuration(cell)
					if assert.NoError(t, err, m[0]) {
						assert.Positive(t, d, m[0])
					}
				}
			}
		}
	}
	// /proc counts CPU in 10 ms ticks: a 200 ms run may read none, and the goal is then not judged.
	assert.Regexp(t, `Goal: gateway → fastmcp CPU per call \S+ against the backend's own \S+, both at \d+ req/s open loop on 8 connections \(2025-11-25, medians of 1 rounds, \d busy runs\): [0-9.]+× \(goal ≤ 2×\): (met|NOT MET)|Goal: gateway CPU per call ≤ 2× a fastmcp server's: not judged \(no CPU figures at one rate\)`, out)
	if npm {
		// Judged, or not when neither npm gateway answered a call in the short window.
		assert.Regexp(t, `Goal: gateway → stdio (\d+ req/s against the faster npm gateway's \d+ \(2025-11-25, 8 connections\)|≥ 20× the faster npm gateway \(2025-11-25, 8 connections\): not judged)`, out)
	}
}
