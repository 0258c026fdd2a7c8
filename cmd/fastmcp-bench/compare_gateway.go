package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

// compare --gateway: tools/call echo through fastmcp's gateway (serve --backend) in front of
// (a) a fastmcp backend over HTTP and (b) one stdio echo server (serve --stdio, so that the
// backend is not the limit), beside that backend called directly and beside supergateway and
// mcp-proxy (npm, pinned in interop/package.json) in front of the same stdio server, in
// interleaved rounds. Every endpoint is driven in one initialize-era (2025-11-25) session,
// the era both npm gateways speak, and in 2026-07-28 where it speaks that revision too.

// Names of the gateway comparison's endpoints.
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

// What --gateway-npm does about supergateway and mcp-proxy.
const (
	gatewayNPMInstall   = "install"   // install the interop toolchain into .tools/ when they are missing
	gatewayNPMInstalled = "installed" // measure them only if .tools/ has them
	gatewayNPMOff       = "off"       // fastmcp's endpoints only
)

// gatewayRow is one endpoint in one protocol revision, measured at each connection count.
type gatewayRow struct {
	name    string
	dialect loadtest.Dialect
	target  loadtest.Target
	engine  string // the generator's engine: goroutines for replies framed by chunks

	rps, cpu, p50, p99 map[int][]float64 // by connections
	busy               map[int]int       // runs the machine was TOO BUSY for, by connections
}

func newGatewayRow(name string, target loadtest.Target, engine string) *gatewayRow {
	target.Name = name + " " + target.Dialect.String()
	return &gatewayRow{name: name, dialect: target.Dialect, target: target, engine: engine,
		rps: map[int][]float64{}, cpu: map[int][]float64{}, p50: map[int][]float64{}, p99: map[int][]float64{}, busy: map[int]int{}}
}

// checkGatewayFlags refuses what --gateway does not combine with: it has endpoints and a
// scenario of its own, and a table only.
func checkGatewayFlags(fs *flag.FlagSet, pos []string) error {
	if len(pos) > 0 && !(len(pos) == 1 && pos[0] == "throughput") {
		return fmt.Errorf("--gateway measures throughput only (got %q)", pos)
	}
	var clash []string
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "peers", "target", "tls", "metrics", "baseline", "stacks", "generator", "rate", "rate-fraction",
			"server-cpuprofile", "goals", "goal-streams", "goal-runs", "html", "json", "cluster", "connections":
			clash = append(clash, "--"+f.Name)
		}
	})
	if len(clash) > 0 {
		return fmt.Errorf("--gateway has endpoints of its own (see -h): not with %s", strings.Join(clash, ", "))
	}
	return nil
}

// parseConnectionList reads --gateway-connections: positive counts, comma-separated, each once.
func parseConnectionList(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 || n > 1024 || slices.Contains(out, n) {
			return nil, fmt.Errorf("%q: want distinct connection counts from 1 to 1024, comma-separated", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// checkGatewayNPM checks --gateway-npm.
func checkGatewayNPM(s string) error {
	switch s {
	case gatewayNPMInstall, gatewayNPMInstalled, gatewayNPMOff:
		return nil
	}
	return fmt.Errorf("--gateway-npm %s, %s or %s (got %q)", gatewayNPMInstall, gatewayNPMInstalled, gatewayNPMOff, s)
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
	live.printf("fastmcp-bench compare --gateway: %d endpoints × %d rounds × %s (+%s warm-up) at %v connections, %s, GOMAXPROCS %d",
		len(rows), o.rounds, o.duration, o.warmup, o.gatewayConnections, pinned, runtime.GOMAXPROCS(0))
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
				if !measureGatewayRow(ctx, o, r, conns, round, live) {
					failed = true
				}
			}
		}
	}
	same, ok := measureSameRateCPU(ctx, o, rows, live)
	failed = failed || !ok
	st, _ := stopMachine(meter)
	printGatewayTable(os.Stdout, rows, o.gatewayConnections)
	for _, n := range notes {
		fmt.Fprintln(os.Stdout, n)
	}
	printGatewayGoals(os.Stdout, rows, o.gatewayConnections, same)
	if st != nil {
		value, mark := machineCell(st)
		fmt.Fprintf(os.Stdout, "\nMachine over the whole run: %s %s\n", value, mark)
	}
	if failed {
		return 1
	}
	return 0
}

// measureGatewayRow runs r once at conns connections and records its figures; false when
// the run failed or had errors.
func measureGatewayRow(ctx context.Context, o *compareOptions, r *gatewayRow, conns, round int, live *liveLine) bool {
	meter := loadtest.StartMachine()
	res, err := loadtest.Throughput(ctx, loadtest.ThroughputConfig{Target: r.target, Connections: conns,
		Duration: o.duration, Warmup: o.warmup, Engine: r.engine, Progress: live.update})
	machine, _ := stopMachine(meter)
	if err != nil {
		live.printf("%s, %d connections, round %d: %v", r.target.Name, conns, round+1, err)
		return false
	}
	ok := res.Errors.Total() == 0
	if !ok {
		live.printf("%s, %d connections, round %d: ERRORS %s", r.target.Name, conns, round+1, res.Errors)
	}
	r.rps[conns] = append(r.rps[conns], res.RPS)
	r.p50[conns] = append(r.p50[conns], float64(res.Latency.P50))
	r.p99[conns] = append(r.p99[conns], float64(res.Latency.P99))
	if res.ServerCPU > 0 {
		r.cpu[conns] = append(r.cpu[conns], float64(res.ServerCPU))
	}
	if machine != nil && machine.TooBusy() != "" {
		r.busy[conns]++
	}
	live.printf("round %d/%d  %-37s %3d conns  %.0f req/s%s", round+1, o.rounds, r.target.Name, conns, res.RPS, machineSuffix(machine))
	return ok
}
