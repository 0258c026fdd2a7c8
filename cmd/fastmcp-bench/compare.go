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
	"github.com/fastmcp-go/fastmcp/streamable"
)

func init() {
	register(command{
		Name:    "compare",
		Summary: "the same scenario against several endpoints in turn (--peers: go-sdk, mcp-go, bare fasthttp), with ratios",
		Run:     compareCmd,
	})
}

const compareUsage = `Usage: fastmcp-bench compare [throughput|latency] [flags]

Runs one scenario against several endpoints in turn, in interleaved rounds (odd rounds in
reverse order), and prints the median of each with ratios. The endpoints are fastmcp
(fastmcp-bench serve, a child process), with --peers the servers of the nested module
bench/peers (built here with the Go toolchain: an echo tool on go-sdk v1.8.0 and on mcp-go
v1.2.1, and a bare fasthttp server answering the same bytes with no MCP work, the ceiling of
the network stack), and any --target NAME=URL.

Every server is driven in each revision of --dialects, one row each: 2026-07-28 (the request
carries its _meta and mirrors MCP-Protocol-Version, Mcp-Method and Mcp-Name) and 2025-11-25
(the initialize era: the call as a legacy client sends it after its handshake, with only the
MCP-Protocol-Version header; the check before the rounds performs that handshake). Ratios
compare targets of one revision; a "legacy/modern" line per server divides its 2025-11-25
figures by its 2026-07-28 ones (goal for fastmcp: rps ≥ 0.90× and allocations ≤ 1.10×). A
server that fails the check in a revision is shown as not served, with the reason, except
fastmcp's and the --targets' 2026-07-28 check, which must pass. --stacks serves fastmcp on
more HTTP stacks, each its own server (the goals judge the native listener's).

For the servers it starts, throughput also reports the server's CPU per request
(/proc/PID/stat) and its heap allocations per request (runtime.MemStats of the heap profile,
read before and after each run, less the reading's own cost).

--tls also serves fastmcp over TLS (fastmcp-tls: the same serve with --tls-cert and --tls-key,
a self-signed pair made for the run, which the load alone trusts) and prints its cost per
request beside plaintext, from the same rounds.

--metrics also serves fastmcp with serve --metrics (fastmcp-metrics) in the rounds, then runs
--metrics-pairs pairs of short runs of the two back to back in each revision: the goal (within
5%) judges the median of the pairs' ratios, since two runs a second apart see the same machine
where rounds minutes apart need not.

--pin puts every server on CPU 0 and the generator on CPU 1 (taskset), as the reference
measurements did. --generator wrk drives the same requests with wrk (apt-get install wrk)
so anyone can cross-check the generator; --generator both runs the two in each round.
--quick is a bounded first look. Load only goes to loopback addresses.

--gateway has endpoints of its own: fastmcp's gateway (serve --backend) in front of a fastmcp
backend over HTTP and in front of one stdio echo server (serve --stdio), that backend directly,
and supergateway and mcp-proxy (npm, pinned in interop/package.json and installed into .tools/
as the interop lane does) in front of the same stdio server, one 2025-11-25 session each (and
2026-07-28 rows where the endpoint serves it, per --dialects), at each of --gateway-connections;
CPU per call counts a gateway's stdio child. Then the gateway in front of the fastmcp backend and
that backend directly run open loop at one rate (80% of the gateway's maximum, most connections),
in --rounds pairs: a server's CPU per call falls as its rate rises, so the CPU goal compares the
two at the same rate (the ratio of their maxima is printed beside it).

Flags:
`

// compareOptions are the flags of compare.
type compareOptions struct {
	peers, pin              bool
	targets                 []string
	generator               string
	rounds, connections     int
	duration, warmup        time.Duration
	rate                    float64
	rateFraction            float64
	peersDir                string
	jsonFile, htmlFile      string
	cpuProfileServer        string
	serverCPU, generatorCPU int
	goals, quick            bool
	metricsOn               bool          // compare_metrics.go
	baseline                string        // another build of fastmcp-bench, served beside
	metricsPairs            int           // compare_metrics_pairs.go
	metricsPairDuration     time.Duration // compare_metrics_pairs.go
	goalStreams, goalRuns   int
	dialects, stacks        string
	dialectList             []loadtest.Dialect
	stackList               []string
	tls                     compareTLS
	cluster                 int    // compare_cluster.go
	busPostgres             string // compare_cluster_fanout_bus.go
	gateway                 bool   // compare_gateway.go
	gatewayConnections      []int  // compare_gateway.go
	gatewayNPM              string // compare_gateway.go
}

type targetsFlag struct{ v *[]string }

func (t targetsFlag) String() string     { return "" }
func (t targetsFlag) Set(s string) error { *t.v = append(*t.v, s); return nil }

// envPinned marks the generator process already re-executed under taskset.
const envPinned = "FASTMCP_BENCH_PINNED"

func compareCmd(ctx context.Context, args []string) int {
	var o compareOptions
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), compareUsage)
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), fullLegend(true))
	}
	o.flags(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return usageStatus(err)
	}
	if o.quick {
		o.applyQuick(fs)
	}
	if o.cluster != 0 {
		if err := checkClusterFlags(fs, &o, pos); err != nil {
			fmt.Fprintln(os.Stderr, "compare:", err)
			return 2
		}
		return compareCluster(ctx, &o)
	}
	if o.gateway {
		if err := checkGatewayFlags(fs, pos); err != nil {
			fmt.Fprintln(os.Stderr, "compare:", err)
			return 2
		}
		if o.gatewayConnections == nil {
			o.gatewayConnections = defaultGatewayConnections
		}
		if o.dialectList, err = parseCompareDialects(o.dialects); err != nil {
			fmt.Fprintln(os.Stderr, "compare: --dialects:", err)
			return 2
		}
		if err := checkGatewayNPM(o.gatewayNPM); err != nil {
			fmt.Fprintln(os.Stderr, "compare:", err)
			return 2
		}
		if o.pin && os.Getenv(envPinned) == "" {
			return repin(ctx, &o, args)
		}
		return compareGateway(ctx, &o)
	}
	if flagGiven(fs, "gateway-connections") || flagGiven(fs, "gateway-npm") {
		fmt.Fprintln(os.Stderr, "compare: --gateway-connections and --gateway-npm are for --gateway")
		return 2
	}
	if flagGiven(fs, "bus-postgres") {
		fmt.Fprintln(os.Stderr, "compare: --bus-postgres is for the fan-out part of --cluster")
		return 2
	}
	if o.dialectList, err = parseCompareDialects(o.dialects); err != nil {
		fmt.Fprintln(os.Stderr, "compare: --dialects:", err)
		return 2
	}
	if o.stackList, err = parseStacks(o.stacks); err != nil {
		fmt.Fprintln(os.Stderr, "compare: --stacks:", err)
		return 2
	}
	if o.rateFraction <= 0 || o.rateFraction > 1 {
		fmt.Fprintf(os.Stderr, "compare: --rate-fraction between 0 (excluded) and 1 (got %g)\n", o.rateFraction)
		return 2
	}
	scen := "throughput"
	if len(pos) > 1 || (len(pos) == 1 && pos[0] != "throughput" && pos[0] != "latency") {
		fmt.Fprintf(os.Stderr, "compare: one scenario, throughput or latency (got %q)\n", pos)
		return 2
	}
	if len(pos) == 1 {
		scen = pos[0]
	}
	if o.generator != "ours" && o.generator != "wrk" && o.generator != "both" {
		fmt.Fprintf(os.Stderr, "compare: --generator ours, wrk or both (got %q)\n", o.generator)
		return 2
	}
	if o.generator != "ours" && scen != "throughput" {
		fmt.Fprintln(os.Stderr, "compare: wrk drives throughput only (it is closed-loop: its latencies suffer coordinated omission)")
		return 2
	}
	if o.generator != "ours" {
		if _, err := exec.LookPath("wrk"); err != nil {
			fmt.Fprintln(os.Stderr, "compare: wrk is not installed (Debian: apt-get install -y wrk)")
			return 1
		}
	}
	if o.pin && os.Getenv(envPinned) == "" {
		return repin(ctx, &o, args)
	}
	return compare(ctx, &o, scen)
}

// applyQuick sets the --quick values of the flags the command line did not set.
func (o *compareOptions) applyQuick(fs *flag.FlagSet) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	quick := map[string]func(){
		"rounds":                func() { o.rounds = 2 },
		"duration":              func() { o.duration = 300 * time.Millisecond },
		"warmup":                func() { o.warmup = 100 * time.Millisecond },
		"connections":           func() { o.connections = 4 },
		"goals":                 func() { o.goals = false },
		"metrics-pairs":         func() { o.metricsPairs = 2 },
		"metrics-pair-duration": func() { o.metricsPairDuration = 300 * time.Millisecond },
	}
	for name, apply := range quick {
		if !set[name] {
			apply()
		}
	}
}

// parseCompareDialects parses compare's --dialects, the request forms of the load (serve's
// --dialects, parseDialects, names the dialects a server serves); each revision once.
func parseCompareDialects(s string) ([]loadtest.Dialect, error) {
	var ds []loadtest.Dialect
	for _, item := range splitList(s) {
		d, err := loadtest.ParseDialect(item)
		if err != nil {
			return nil, err
		}
		if slices.Contains(ds, d) {
			return nil, fmt.Errorf("%s given twice", d)
		}
		ds = append(ds, d)
	}
	if len(ds) == 0 {
		return nil, errors.New("no revision given")
	}
	return ds, nil
}

// compareStacks are the HTTP stacks of serve --stack.
var compareStacks = []string{"fasthttp", "nethttp", "fasthttp-mount"}

// parseStacks parses --stacks; each stack once.
func parseStacks(s string) ([]string, error) {
	var out []string
	for _, st := range splitList(s) {
		switch {
		case !slices.Contains(compareStacks, st):
			return nil, fmt.Errorf("unknown stack %q (%s)", st, strings.Join(compareStacks, ", "))
		case slices.Contains(out, st):
			return nil, fmt.Errorf("%s given twice", st)
		}
		out = append(out, st)
	}
	if len(out) == 0 {
		return nil, errors.New("no stack given")
	}
	return out, nil
}

// stackServer names fastmcp served on stack: fastmcp itself on the native listener, whose
// figures the goals judge.
func stackServer(stack string) string {
	if stack == "fasthttp" {
		return nameFastmcp
	}
	return nameFastmcp + "-" + stack
}

// repin runs this command again under taskset on the generator's CPU.
func repin(ctx context.Context, o *compareOptions, args []string) int {
	if runtime.NumCPU() < 2 {
		fmt.Fprintln(os.Stderr, "compare: --pin needs two CPUs")
		return 1
	}
	if _, err := exec.LookPath("taskset"); err != nil {
		fmt.Fprintln(os.Stderr, "compare: --pin needs taskset (Debian: util-linux)")
		return 1
	}
	bin, err := self()
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		return 1
	}
	cmd := exec.CommandContext(ctx, "taskset", append([]string{"-c", strconv.Itoa(o.generatorCPU), bin, "compare"}, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), envPinned+"=1")
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		fmt.Fprintln(os.Stderr, "compare:", err)
		return 1
	}
	return 0
}

const (
	nameFastmcp  = "fastmcp"
	nameBaseline = "fastmcp-baseline"
	nameCeiling  = "bare-fasthttp"
)

// peer is one server of bench/peers.
type peer struct{ name, dir string }

var peerList = []peer{{nameCeiling, "bare"}, {"mcp-go", "mcpgo"}, {"go-sdk", "gosdk"}}

func compare(ctx context.Context, o *compareOptions, scen string) int {
	live := newLiveLine(os.Stderr)
	serverCPU := -1
	if o.pin {
		serverCPU = o.serverCPU
	}
	var children []*child
	defer func() {
		for _, c := range children {
			c.stop()
		}
	}()
	// A server is one process (or --target URL); it has one endpoint per protocol revision.
	type server struct {
		name  string
		url   string
		c     *child
		given bool // a --target: its 2026-07-28 check must pass
	}
	var servers []server
	bin, err := self()
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		return 1
	}
	for _, stack := range o.stackList {
		// --pprof: the heap profile's counters give the allocations per request. Every fastmcp
		// server compare starts runs with --tasks-store off: the peers serve no tasks, and a task
		// store's page cache would be counted as our memory per stream.
		name := stackServer(stack)
		fc, err := startChild(ctx, name, serverCPU, bin, "serve", "--addr", "127.0.0.1:0", "--fixtures", "demo", "--tasks-store", "off", "--stack", stack, "--pprof", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, "compare:", err)
			return 1
		}
		children = append(children, fc)
		servers = append(servers, server{name: name, url: fc.url, c: fc, given: true})
	}
	for _, stack := range o.stackList {
		if o.baseline == "" {
			break
		}
		name := nameBaseline + strings.TrimPrefix(stackServer(stack), nameFastmcp)
		fc, err := startChild(ctx, name, serverCPU, o.baseline, "serve", "--addr", "127.0.0.1:0", "--fixtures", "demo", "--tasks-store", "off", "--stack", stack, "--pprof", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, "compare: --baseline:", err)
			return 1
		}
		children = append(children, fc)
		servers = append(servers, server{name: name, url: fc.url, c: fc, given: true})
	}
	if o.tls.on {
		tc, stop, err := o.tls.start(ctx, serverCPU, bin)
		if err != nil {
			fmt.Fprintln(os.Stderr, "compare: --tls:", err)
			return 1
		}
		defer stop()
		children = append(children, tc)
		servers = append(servers, server{name: nameFastmcpTLS, url: tc.url, c: tc, given: true})
	}
	if o.metricsOn {
		fc, err := startChild(ctx, nameMetricsOn, serverCPU, append([]string{bin, "serve", "--addr", "127.0.0.1:0", "--fixtures", "demo", "--tasks-store", "off", "--pprof", "127.0.0.1:0"}, metricsOnArgs...)...)
		if err != nil {
			fmt.Fprintln(os.Stderr, "compare:", err)
			return 1
		}
		children = append(children, fc)
		servers = append(servers, server{name: nameMetricsOn, url: fc.url, c: fc, given: true})
	}
	if o.peers {
		bins, err := buildPeers(ctx, o.peersDir, live)
		if err != nil {
			fmt.Fprintln(os.Stderr, "compare: --peers:", err)
			return 1
		}
		for _, p := range peerList {
			c, err := startChild(ctx, p.name, serverCPU, bins[p.name], "-addr", "127.0.0.1:0", "-pprof", "127.0.0.1:0")
			if err != nil {
				fmt.Fprintln(os.Stderr, "compare:", err)
				return 1
			}
			children = append(children, c)
			servers = append(servers, server{name: p.name, url: c.url, c: c})
		}
	}
	for _, t := range o.targets {
		name, url, ok := strings.Cut(t, "=")
		if !ok {
			fmt.Fprintf(os.Stderr, "compare: --target %q: want NAME=URL\n", t)
			return 2
		}
		servers = append(servers, server{name: name, url: url, given: true})
	}

	cmp := &comparison{Scenario: scen, Metric: "rps", Rounds: o.rounds, Pinned: o.pin,
		Samples: map[string]map[string][]float64{}, Medians: map[string]map[string]float64{}}
	if scen == "latency" {
		cmp.Metric = "p99"
	}
	switch o.generator {
	case "both":
		cmp.Generators = []string{"ours", "wrk"}
	default:
		cmp.Generators = []string{o.generator}
	}
	type endpoint struct {
		name string // the target's key in cmp
		t    loadtest.Target
		c    *child
	}
	var eps []endpoint
	for _, s := range servers {
		for _, d := range o.dialectList {
			key := cmp.addTarget(s.name, d)
			ep := endpoint{key, loadtest.Target{URL: s.url, Name: key, Dialect: d, TLS: o.tls.trust}, s.c}
			if s.c != nil {
				ep.t.PID = s.c.pid()
			}
			if err := loadtest.Check(ctx, ep.t); err != nil {
				if d == loadtest.Dialect2026 && s.given {
					fmt.Fprintf(os.Stderr, "compare: %s: %v\n", key, err)
					return 1
				}
				cmp.notServed(key, err)
				live.printf("%s %s not served: %v", s.name, d, err)
				continue
			}
			eps = append(eps, ep)
		}
	}
	rep := &runReport{Command: "compare " + scen, Version: version(), Started: time.Now(), Comparison: cmp}
	rep.Target = strings.Join(cmp.Targets, ", ")
	if o.pin {
		rep.Target += fmt.Sprintf(" (servers on CPU %d, generator on CPU %d)", o.serverCPU, o.generatorCPU)
	}
	live.printf("fastmcp-bench compare %s: %s, %d rounds × %s, %d connections, generator %s, GOMAXPROCS %d",
		scen, rep.Target, o.rounds, o.duration, o.connections, o.generator, runtime.GOMAXPROCS(0))
	// The goals are fastmcp's on its 2026-07-28 path, or on the first path measured.
	fast := eps[0]
	for _, ep := range eps {
		if ep.name == nameFastmcp {
			fast = ep
		}
	}

	if scen == "latency" {
		cmp.Rate = o.rate
		if cmp.Rate == 0 {
			tr, err := loadtest.Throughput(ctx, loadtest.ThroughputConfig{Target: fast.t, Connections: o.connections,
				Duration: 2 * time.Second, Warmup: 500 * time.Millisecond, Progress: live.update})
			if err != nil || tr.RPS == 0 {
				fmt.Fprintln(os.Stderr, "compare: probing fastmcp's maximum rate failed:", err)
				return 1
			}
			cmp.Rate, cmp.RateFraction = tr.RPS*o.rateFraction, o.rateFraction
			live.printf("latency at %.0f req/s: %g of fastmcp's maximum (%.0f req/s)", cmp.Rate, o.rateFraction, tr.RPS)
		}
	}
	start := time.Now()
	whole := loadtest.StartMachine()
	// Every round's report, by target, merged into medians after the last round.
	perTarget := map[string][]loadtest.Report{}
	perTargetRes := map[string][]loadtest.Reporter{}
	for round := range o.rounds {
		// Odd rounds run the endpoints in reverse, so that neither of two neighbours (a
		// server's two paths, fastmcp and the ceiling) always runs first.
		order := eps
		if round%2 == 1 {
			order = slices.Clone(eps)
			slices.Reverse(order)
		}
		for _, ep := range order {
			for _, gen := range cmp.Generators {
				if ctx.Err() != nil {
					return 1
				}
				var stopProf func() error
				if round == 0 && ep.name == fast.name && o.cpuProfileServer != "" && gen == cmp.Generators[0] {
					stopProf = profileChild(ep.c, o.cpuProfileServer, o.warmup+o.duration)
				}
				var allocs *allocMeter
				if ep.c != nil && gen == "ours" && scen == "throughput" {
					allocs = startAllocs(ep.c.debug.Pprof)
				}
				meter := loadtest.StartMachine()
				v, res, err := measure(ctx, o, scen, gen, ep.t, cmp.Rate, live)
				machine, _ := stopMachine(meter)
				if stopProf != nil {
					if perr := stopProf(); perr != nil {
						live.printf("server profile: %v", perr)
					} else {
						live.printf("server CPU profile of fastmcp written to %s", o.cpuProfileServer)
					}
				}
				if err != nil {
					live.printf("%s %s round %d: %v", ep.name, gen, round+1, err)
					rep.Failures = append(rep.Failures, fmt.Sprintf("%s/%s round %d: %v", ep.name, gen, round+1, err))
					continue
				}
				cmp.record(gen, ep.name, v, res, machine)
				allocNote := ""
				if res != nil {
					r := res.Report()
					r.Target = ep.name
					r.Machine = machine
					if tr, ok := res.(*loadtest.ThroughputResult); ok && allocs != nil {
						objs, b, aerr := allocs.perRequest(tr.Answered)
						if aerr != nil {
							live.printf("%s round %d: allocations not measured: %v", ep.name, round+1, aerr)
						} else {
							cmp.recordAllocs(ep.name, objs, b)
							r.Metrics = append(r.Metrics, loadtest.Metric{Name: metricAllocsPerRequest, Value: objs, Unit: loadtest.UnitCount},
								loadtest.Metric{Name: metricBytesPerRequest, Value: b, Unit: loadtest.UnitBytes})
							allocNote = fmt.Sprintf(", %.1f allocs/req", objs)
						}
					}
					perTarget[ep.name] = append(perTarget[ep.name], r)
					perTargetRes[ep.name] = append(perTargetRes[ep.name], res)
				}
				live.printf("round %d/%d  %-24s %-4s %s%s%s", round+1, o.rounds, ep.name, gen, cmp.format(v), allocNote, machineSuffix(machine))
			}
		}
	}
	cmp.summarize()
	if o.metricsOn && scen == "throughput" && slices.Contains(cmp.Generators, "ours") && ctx.Err() == nil {
		targets := map[string]loadtest.Target{}
		for _, ep := range eps {
			targets[ep.name] = ep.t
		}
		metricsPairs(ctx, o, targets, cmp, live)
	}
	for _, ep := range eps {
		if reps := perTarget[ep.name]; len(reps) > 0 {
			rep.add(loadtest.MedianReport(reps, cmp.Metric), perTargetRes[ep.name])
		}
	}
	if o.goals && scen == "throughput" && ctx.Err() == nil {
		goalRuns(ctx, o, cmp, fast.t, bin, serverCPU, rep, live)
	}
	rep.Elapsed = time.Since(start)
	rep.Machine, rep.MachineNote = stopMachine(whole)
	printReport(os.Stdout, rep)
	printComparison(os.Stdout, cmp)
	printTLSCost(os.Stdout, cmp)
	printMetricsLine(os.Stdout, cmp)
	printMetricsPairs(os.Stdout, cmp)
	printGoals(os.Stdout, rep)
	printMachine(os.Stdout, rep)
	printLegend(os.Stdout, rep)
	if err := rep.write(o.jsonFile, o.htmlFile); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		return 1
	}
	if len(rep.Failures) > 0 {
		return 1
	}
	return 0
}

// Metrics compare adds to each throughput report of a server it started.
const (
	metricAllocsPerRequest = "server allocs/request"
	metricBytesPerRequest  = "server bytes/request"
)

// measure runs one scenario run against t with a generator and returns its headline value.
func measure(ctx context.Context, o *compareOptions, scen, gen string, t loadtest.Target, rate float64, live *liveLine) (float64, loadtest.Reporter, error) {
	if gen == "wrk" {
		rps, err := runWrk(ctx, t.URL, t.Dialect, o.connections, o.warmup, o.duration)
		return rps, nil, err
	}
	if scen == "latency" {
		res, err := loadtest.Latency(ctx, loadtest.LatencyConfig{Target: t, Rate: rate, Connections: o.connections,
			Duration: o.duration, Warmup: o.warmup, Progress: live.update})
		if err != nil {
			return 0, nil, err
		}
		return float64(res.Latency.P99), res, nil
	}
	res, err := loadtest.Throughput(ctx, loadtest.ThroughputConfig{Target: t, Connections: o.connections,
		Duration: o.duration, Warmup: o.warmup, Progress: live.update})
	if err != nil {
		return 0, nil, err
	}
	if res.Errors.Total() > 0 {
		live.printf("%s: ERRORS %s", t.Name, res.Errors)
	}
	return res.RPS, res, nil
}

// goalRuns measures fastmcp's other goals after the throughput rounds: the open loop at half
// its median maximum (against the same server process), sse-keepalive with a fresh server
// process on the servers' CPU, and consecutive drains of in-process endpoints that count
// what they admitted.
func goalRuns(ctx context.Context, o *compareOptions, cmp *comparison, fast loadtest.Target, bin string, serverCPU int, rep *runReport, live *liveLine) {
	meter := loadtest.StartMachine()
	add := func(name string, res loadtest.Reporter, err error) {
		machine, _ := stopMachine(meter)
		defer func() { meter = loadtest.StartMachine() }()
		if err != nil {
			live.printf("goal %s: %v", name, err)
			rep.Failures = append(rep.Failures, name+": "+err.Error())
			return
		}
		r := res.Report()
		r.Machine = machine
		rep.add(r, res)
		live.printf("goal %-13s done%s%s", name, errorSuffix(r), machineSuffix(machine))
	}
	if top := cmp.Medians[cmp.Generators[0]][nameFastmcp]; top > 0 {
		// As many runs as rounds, reported as medians (min–max) like the rounds: the machine
		// is noisy. Each run has its own machine state; the busiest is reported.
		var runs []loadtest.Report
		var results []loadtest.Reporter
		for range max(1, o.rounds) {
			if ctx.Err() != nil {
				break
			}
			m := loadtest.StartMachine()
			res, err := loadtest.Latency(ctx, loadtest.LatencyConfig{Target: fast, Rate: top / 2, Connections: o.connections,
				Duration: o.duration, Warmup: o.warmup, Progress: live.update})
			if err != nil {
				add("latency", nil, err)
				runs = nil
				break
			}
			r := res.Report()
			r.Machine, _ = stopMachine(m)
			runs, results = append(runs, r), append(results, res)
			live.printf("goal latency       run %d: p99 %s%s", len(runs), loadtest.FormatDuration(res.Latency.P99), machineSuffix(r.Machine))
		}
		if len(runs) > 0 {
			r := loadtest.MedianReport(runs, "p99")
			r.Notes = append(r.Notes, fmt.Sprintf("%d runs at %.0f req/s, half of fastmcp's median maximum", len(runs), top/2))
			rep.add(r, results)
		}
		meter = loadtest.StartMachine()
	}
	if o.goalStreams > 0 && ctx.Err() == nil {
		n := o.goalStreams
		c, err := startChild(ctx, nameFastmcp, serverCPU, bin, "serve", "--addr", "127.0.0.1:0", "--fixtures", "demo", "--tasks-store", "off",
			"--max-subscriptions", strconv.Itoa(n), "--max-connections", strconv.Itoa(n+256),
			"--keepalive-interval", embeddedKeepAlive.String(), "--drain-timeout", "1s", "--pprof", "127.0.0.1:0")
		if err != nil {
			add("sse-keepalive", nil, err)
		} else {
			res, err := measureStreams(ctx, loadtest.StreamsConfig{
				Target: loadtest.Target{URL: c.url, Name: nameFastmcp, PID: c.pid()}, Streams: n, Duration: 3 * time.Second,
				Progress: live.update,
			}, &streamsProbe{heap: c.memory, pid: c.pid()})
			c.stop()
			add("sse-keepalive", res, err)
		}
	}
	if o.goalRuns > 0 && ctx.Err() == nil {
		res, err := loadtest.Drain(ctx, loadtest.DrainConfig{Runs: o.goalRuns, DrainTimeout: embeddedDrainTimeout, Progress: live.update,
			Start: func(context.Context, int) (*loadtest.DrainTarget, error) {
				s, err := startEmbedded(streamable.ListenerConfig{Config: streamable.Config{DrainTimeout: embeddedDrainTimeout}}, true)
				if err != nil {
					return nil, err
				}
				return s.drainTarget(), nil
			}})
		add("drain", res, err)
	}
}

// printGoals lists every goal a report of rep has, with its verdict.
func printGoals(w *os.File, rep *runReport) {
	for i := range rep.Reports {
		r := &rep.Reports[i]
		for _, m := range r.Metrics {
			if g := goalMark(r, m); g != "" && r.Target == nameFastmcp {
				fmt.Fprintf(w, "%s %s = %s (%s)\n", r.Scenario, m.Name, m, g)
			}
		}
	}
}

// buildPeers builds the servers of bench/peers into the user cache and returns their paths.
func buildPeers(ctx context.Context, dir string, live *liveLine) (map[string]string, error) {
	bins := map[string]string{}
	for _, p := range peerList {
		bin, err := buildPeerProgram(ctx, dir, p.dir, live)
		if err != nil {
			return nil, err
		}
		bins[p.name] = bin
	}
	return bins, nil
}

// findPeersDir looks for bench/peers/go.mod from the working directory upward.
func findPeersDir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "bench", "peers", "go.mod")); err == nil {
			return filepath.Join(d, "bench", "peers"), nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("bench/peers not found above the working directory: run from the fastmcp repository or pass --peers-dir")
		}
	}
}

// flags registers compare's flags on fs.
func (o *compareOptions) flags(fs *flag.FlagSet) {
	fs.BoolVar(&o.peers, "peers", false, "build and start the peers of bench/peers (go-sdk, mcp-go, bare fasthttp)")
	fs.BoolVar(&o.pin, "pin", false, "servers on one CPU, the generator on another (taskset)")
	fs.Var(targetsFlag{&o.targets}, "target", "another endpoint, `NAME=URL` (repeatable; loopback only)")
	fs.StringVar(&o.generator, "generator", "ours", "load generator: ours, wrk or both")
	fs.IntVar(&o.rounds, "rounds", 3, "interleaved rounds; the report shows medians")
	fs.IntVar(&o.connections, "connections", loadtest.DefaultConnections, "keep-alive connections")
	fs.DurationVar(&o.duration, "duration", loadtest.DefaultDuration, "measured window of each run")
	fs.DurationVar(&o.warmup, "warmup", loadtest.DefaultWarmup, "unmeasured warm-up before each run")
	fs.Float64Var(&o.rate, "rate", 0, "latency: the rate for every endpoint (default: --rate-fraction of fastmcp's maximum, probed)")
	fs.Float64Var(&o.rateFraction, "rate-fraction", 0.5, "latency without --rate: the `fraction` (0 < f ≤ 1) of fastmcp's probed maximum every endpoint is driven at (0.25: the quarter-rate p99 goal)")
	fs.StringVar(&o.peersDir, "peers-dir", "", "`directory` of the bench/peers module (default: found from the working directory)")
	fs.StringVar(&o.jsonFile, "json", "", "write the results as JSON to `file`")
	fs.StringVar(&o.htmlFile, "html", "", "write a self-contained HTML report to `file`")
	fs.StringVar(&o.cpuProfileServer, "server-cpuprofile", "", "profile the fastmcp server's CPU during its first measured run (through serve --pprof) into `file`")
	fs.IntVar(&o.serverCPU, "server-cpu", 0, "with --pin: the servers' CPU")
	fs.IntVar(&o.generatorCPU, "generator-cpu", 1, "with --pin: the generator's CPU")
	fs.BoolVar(&o.goals, "goals", true, "after throughput, measure fastmcp's other goals: latency at half its maximum, --goal-streams listen streams, --goal-runs drains")
	fs.IntVar(&o.goalStreams, "goal-streams", 10000, "listen streams of the goal run")
	fs.IntVar(&o.goalRuns, "goal-runs", 20, "consecutive drain runs of the goal run")
	fs.StringVar(&o.dialects, "dialects", loadtest.ProtocolVersion+","+loadtest.LegacyVersion,
		"comma-separated protocol `revisions` every server is driven with, each its own row: 2026-07-28 (_meta and mirrored headers), 2025-11-25 (the initialize era: the header only)")
	fs.StringVar(&o.stacks, "stacks", "fasthttp", "comma-separated HTTP `stacks` fastmcp is served on, one server each: fasthttp (the native listener, named fastmcp), nethttp, fasthttp-mount (named fastmcp-nethttp, fastmcp-fasthttp-mount)")
	o.tls.flags(fs)
	fs.StringVar(&o.baseline, "baseline", "", "also serve fastmcp with the fastmcp-bench `binary` given (an earlier build) on each of --stacks, named "+nameBaseline+" (-STACK), in the same rounds, its CPU and allocations per request measured as fastmcp's: the before and after of a change")
	fs.BoolVar(&o.metricsOn, "metrics", false, "also serve fastmcp with serve --metrics (named "+nameMetricsOn+") in the same rounds, then in --metrics-pairs paired runs, and print the metrics on/off lines (goal: within 5%)")
	fs.IntVar(&o.metricsPairs, "metrics-pairs", defaultMetricsPairs, "with --metrics: pairs of short runs of fastmcp and "+nameMetricsOn+" back to back, per revision, whose median ratio the goal judges")
	fs.DurationVar(&o.metricsPairDuration, "metrics-pair-duration", defaultMetricsPairDuration, "with --metrics: measured window of each paired run")
	fs.IntVar(&o.cluster, "cluster", 0, "requests per second through HAProxy (on PATH) in front of 1, 2 … `N` replicas of serve, beside HAProxy's own ceiling (in front of bench/peers' bare fasthttp) and one replica without the proxy, in interleaved rounds: a table; then the fan-out part: one event from a replica to 1, 100 and 1000 listen streams on another over the in-memory hub, NATS (nats-server on PATH) and PostgreSQL (--bus-postgres), and events per second through each; throughput only, no other endpoints")
	fs.StringVar(&o.busPostgres, "bus-postgres", "", "with --cluster: the `DSN` of the PostgreSQL whose LISTEN/NOTIFY the fan-out part measures (default $"+envFanoutPostgres+"; without either, that bus is skipped)")
	fs.BoolVar(&o.gateway, "gateway", false, "tools/call through fastmcp's gateway in front of a fastmcp backend (HTTP) and of a stdio echo server, beside the backend directly and supergateway and mcp-proxy (npm) in front of the same stdio server: a table and issue 23's goals; throughput only, no other endpoints")
	fs.Func("gateway-connections", "with --gateway: comma-separated `counts` of keep-alive connections (default 1,8,32)", func(v string) error {
		n, err := parseConnectionList(v)
		o.gatewayConnections = n
		return err
	})
	fs.StringVar(&o.gatewayNPM, "gateway-npm", gatewayNPMInstall, "with --gateway: "+gatewayNPMInstall+" (supergateway and mcp-proxy, installing the interop toolchain into .tools/ when missing), "+gatewayNPMInstalled+" (only if .tools/ has them) or "+gatewayNPMOff)
	fs.BoolVar(&o.quick, "quick", false, "a bounded first look (and what tests run): --rounds 2 --duration 300ms --warmup 100ms --connections 4 --goals=false, unless set")
}
