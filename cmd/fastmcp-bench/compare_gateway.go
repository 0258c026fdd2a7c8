package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

// compare --gateway: tools/call echo through fastmcp's gateway (serve --backend) in front of
// (a) a fastmcp backend over HTTP and (b) one stdio echo server (serve --stdio, so that the
// backend is not the limit), beside that backend called directly and beside supergateway and
// mcp-proxy (npm, pinned in interop/package.json) in front of the same stdio server, in
// interleaved rounds, one initialize-era (2025-11-25) session per endpoint: the era both
// npm gateways speak.

// Names of the gateway comparison's rows.
const (
	nameGwDirect       = "fastmcp backend, direct"
	nameGwHTTP         = "gateway → fastmcp (HTTP)"
	nameGwStdio        = "gateway → stdio"
	nameGwSupergateway = "supergateway → stdio"
	nameGwMCPProxy     = "mcp-proxy → stdio"
)

// The goals of issue 23's figures.
const (
	goalGatewayStdioTimes = 20.0 // gateway → stdio req/s over the faster npm gateway's
	goalGatewayCPUTimes   = 2.0  // the gateway's CPU per call over a fastmcp server's
)

// defaultGatewayConnections are the connection counts of the figures.
var defaultGatewayConnections = []int{1, 8, 32}

// gatewayRow is one endpoint of the comparison, measured at each connection count.
type gatewayRow struct {
	name   string
	url    string
	pid    int
	tree   bool   // its CPU includes its children's (a stdio backend)
	engine string // the generator's engine: goroutines for replies framed by chunks
	target loadtest.Target

	rps, cpu, p50, p99 map[int][]float64 // by connections
}

func newGatewayRow(name, url string, pid int, tree bool, engine string) *gatewayRow {
	return &gatewayRow{name: name, url: url, pid: pid, tree: tree, engine: engine,
		rps: map[int][]float64{}, cpu: map[int][]float64{}, p50: map[int][]float64{}, p99: map[int][]float64{}}
}

// checkGatewayFlags refuses what --gateway does not combine with: it has endpoints, a
// scenario and a protocol revision of its own.
func checkGatewayFlags(fs *flag.FlagSet, pos []string) error {
	if len(pos) > 0 && !(len(pos) == 1 && pos[0] == "throughput") {
		return fmt.Errorf("--gateway measures throughput only (got %q)", pos)
	}
	var clash []string
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "peers", "target", "tls", "metrics", "baseline", "stacks", "generator", "rate", "dialects",
			"server-cpuprofile", "goals", "html", "cluster", "connections":
			clash = append(clash, "--"+f.Name)
		}
	})
	if len(clash) > 0 {
		return fmt.Errorf("--gateway has endpoints of its own (see -h): not with %s", strings.Join(clash, ", "))
	}
	return nil
}

// parseConnectionList reads --gateway-connections: positive counts, comma-separated.
func parseConnectionList(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 || n > 1024 {
			return nil, fmt.Errorf("%q: want connection counts from 1 to 1024, comma-separated", s)
		}
		out = append(out, n)
	}
	return out, nil
}

func compareGateway(ctx context.Context, o *compareOptions) int {
	live := newLiveLine(os.Stderr)
	cpu := -1
	if o.pin {
		cpu = o.serverCPU
	}
	rows, notes, stop, err := startGatewayRows(ctx, o, cpu, live)
	defer stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare --gateway:", err)
		return 1
	}
	pinned := "unpinned"
	if o.pin {
		pinned = fmt.Sprintf("servers and their stdio children on CPU %d, the generator on CPU %d", o.serverCPU, o.generatorCPU)
	}
	live.printf("fastmcp-bench compare --gateway: %d rounds × %s at %v connections, one %s session each, %s, GOMAXPROCS %d",
		o.rounds, o.duration, o.gatewayConnections, loadtest.LegacyVersion, pinned, runtime.GOMAXPROCS(0))
	meter := loadtest.StartMachine()
	failed := false
	for round := range o.rounds {
		for _, conns := range o.gatewayConnections {
			order := slices.Clone(rows)
			if round%2 == 1 {
				slices.Reverse(order)
			}
			for _, r := range order {
				if ctx.Err() != nil {
					return 1
				}
				res, err := loadtest.Throughput(ctx, loadtest.ThroughputConfig{Target: r.target, Connections: conns,
					Duration: o.duration, Warmup: o.warmup, Engine: r.engine, Progress: live.update})
				if err != nil {
					live.printf("%s, %d connections, round %d: %v", r.name, conns, round+1, err)
					failed = true
					continue
				}
				if res.Errors.Total() > 0 {
					live.printf("%s, %d connections, round %d: ERRORS %s", r.name, conns, round+1, res.Errors)
					failed = true
				}
				r.rps[conns] = append(r.rps[conns], res.RPS)
				r.p50[conns] = append(r.p50[conns], float64(res.Latency.P50))
				r.p99[conns] = append(r.p99[conns], float64(res.Latency.P99))
				if res.ServerCPU > 0 {
					r.cpu[conns] = append(r.cpu[conns], float64(res.ServerCPU))
				}
				live.printf("round %d/%d  %-26s %3d conns  %.0f req/s", round+1, o.rounds, r.name, conns, res.RPS)
			}
		}
	}
	st, _ := stopMachine(meter)
	printGatewayTable(os.Stdout, rows, o.gatewayConnections)
	for _, n := range notes {
		fmt.Fprintln(os.Stdout, n)
	}
	printGatewayGoals(os.Stdout, rows, o.gatewayConnections)
	if st != nil {
		value, mark := machineCell(st)
		fmt.Fprintf(os.Stdout, "\nMachine over the whole run: %s %s\n", value, mark)
	}
	if failed {
		return 1
	}
	return 0
}

// startGatewayRows starts the backend, the two gateways and the npm gateways (those that
// are installed) and opens one session on each; stop ends them all (also on error). notes
// say which rows could not be measured and why.
func startGatewayRows(ctx context.Context, o *compareOptions, cpu int, live *liveLine) (rows []*gatewayRow, notes []string, stop func(), err error) {
	var children []*child
	var npm []*npmGateway
	stop = func() {
		for _, g := range npm {
			g.stop()
		}
		for _, c := range slices.Backward(children) {
			c.stop()
		}
	}
	bin, err := self()
	if err != nil {
		return nil, nil, stop, err
	}
	stdioCmd := bin + " serve --stdio"
	if strings.ContainsAny(bin, " \t") {
		return nil, nil, stop, fmt.Errorf("this binary's path %q has a space, which --backend NAME=stdio:COMMAND cannot carry", bin)
	}
	start := func(name string, tree bool, args ...string) (*child, error) {
		c, err := startChild(ctx, name, cpu, append([]string{bin, "serve", "--addr", "127.0.0.1:0", "--tasks-store", "off"}, args...)...)
		if err != nil {
			return nil, err
		}
		children = append(children, c)
		rows = append(rows, newGatewayRow(name, c.url, c.pid(), tree, ""))
		return c, nil
	}
	backend, err := start(nameGwDirect, false, "--fixtures", "demo")
	if err != nil {
		return nil, nil, stop, err
	}
	if _, err := start(nameGwHTTP, false, "--backend", "web="+backend.url); err != nil {
		return nil, nil, stop, err
	}
	if _, err := start(nameGwStdio, true, "--backend", "local=stdio:"+stdioCmd); err != nil {
		return nil, nil, stop, err
	}
	tools, terr := npmGatewayTools(ctx, o.peersDir, live)
	for _, spec := range []struct {
		name string
		argv func(tools npmTools, port int) []string
	}{
		{nameGwSupergateway, func(t npmTools, port int) []string {
			return []string{t.node, t.supergateway, "--stdio", stdioCmd, "--outputTransport", "streamableHttp", "--stateful",
				"--port", strconv.Itoa(port), "--logLevel", "none"}
		}},
		{nameGwMCPProxy, func(t npmTools, port int) []string {
			return []string{t.node, t.mcpProxy, "--port", strconv.Itoa(port), "--host", "127.0.0.1", "--", bin, "serve", "--stdio"}
		}},
	} {
		if terr != nil {
			notes = append(notes, spec.name+": not measured: "+terr.Error())
			continue
		}
		port, err := freePort()
		if err != nil {
			return nil, nil, stop, err
		}
		g, err := startNPMGateway(ctx, spec.name, cpu, fmt.Sprintf("http://127.0.0.1:%d/mcp", port), spec.argv(tools, port))
		if err != nil {
			return nil, nil, stop, err
		}
		npm = append(npm, g)
		rows = append(rows, newGatewayRow(spec.name, g.url, g.cmd.Process.Pid, true, loadtest.EngineGoroutines))
	}
	for _, r := range rows {
		sid, err := openSessionWithin(ctx, r.url, 30*time.Second)
		if err != nil {
			return nil, nil, stop, fmt.Errorf("%s: %w", r.name, err)
		}
		r.target = loadtest.Target{URL: r.url, Name: r.name, Dialect: loadtest.DialectLegacy, Session: sid, PID: r.pid, CPUTree: r.tree}
	}
	return rows, notes, stop, nil
}

// openSessionWithin opens the row's session, retrying while the endpoint is not yet up (an
// npm gateway listens a moment after it starts, and answers only once its child has).
func openSessionWithin(ctx context.Context, url string, d time.Duration) (string, error) {
	deadline := time.Now().Add(d)
	for {
		sid, err := loadtest.OpenSession(ctx, loadtest.Target{URL: url})
		if err == nil || time.Now().After(deadline) || ctx.Err() != nil {
			return sid, err
		}
		time.Sleep(100 * time.Millisecond) // a poll interval, bounded by the deadline above
	}
}

// npmTools are the pinned Node and npm gateways of the interop toolchain in .tools/.
type npmTools struct{ node, supergateway, mcpProxy string }

// npmGatewayTools finds the npm gateways in the repository's .tools/, installing the
// interop toolchain (interop/toolchain.sh: Node 22 and the pinned packages) when they are
// missing, as the interop lane does.
func npmGatewayTools(ctx context.Context, peersDir string, live *liveLine) (npmTools, error) {
	if peersDir == "" {
		var err error
		if peersDir, err = findPeersDir(); err != nil {
			return npmTools{}, err
		}
	}
	root := filepath.Dir(filepath.Dir(peersDir))
	nm := filepath.Join(root, ".tools", "node_modules")
	t := npmTools{
		node:         filepath.Join(nm, "node", "bin", "node"),
		supergateway: filepath.Join(nm, "supergateway", "dist", "index.js"),
		mcpProxy:     filepath.Join(nm, "mcp-proxy", "dist", "bin", "mcp-proxy.mjs"),
	}
	if present(t.node, t.supergateway, t.mcpProxy) {
		return t, nil
	}
	live.printf("installing the interop toolchain (Node 22, supergateway, mcp-proxy) into %s…", filepath.Join(root, ".tools"))
	script := `set -e; T="$PWD/.tools"; NPM=${NPM:-npm}; mkdir -p "$T/logs"; source interop/toolchain.sh; install_tools`
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return npmTools{}, fmt.Errorf("installing the interop toolchain: %v: %s", err, strings.TrimSpace(string(out)))
	}
	if !present(t.node, t.supergateway, t.mcpProxy) {
		return npmTools{}, errors.New("the interop toolchain has no supergateway or mcp-proxy (interop/package.json)")
	}
	return t, nil
}

func present(paths ...string) bool {
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return false
		}
	}
	return true
}
