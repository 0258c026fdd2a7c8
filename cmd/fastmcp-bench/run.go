package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

func init() {
	register(command{
		Name:    "run",
		Summary: "run load scenarios against an embedded endpoint or --target URL",
		Run:     runCmd,
	})
	register(command{
		Name:    "suite",
		Summary: "the default run: an embedded endpoint and the default scenarios in under a minute",
		Run:     suiteCmd,
	})
	defaultCommand = "suite"
}

const runUsage = `Usage: fastmcp-bench run [scenario...] [flags]

Runs the named scenarios (all of the default suite when none is named) against --target, or
against an endpoint started in this process with the demo fixtures. Load only ever goes to
loopback addresses. Progress goes to stderr; the results table to stdout.

Before any load, a --target is discovered with the client package: it connects (era auto:
server/discover, else the initialize handshake; --dialect pins one), lists the tools, checks
that --tool exists and picks its string argument from the inputSchema (--arg checks one), then
drives the load in the revision the target negotiated. It prints one line with what it found,
or exits 1 naming the target and what is missing.

Scenarios:
%s
Flags:
`

const suiteUsage = `Usage: fastmcp-bench [suite] [flags]

Runs the default scenarios (%s) against an endpoint started in this
process with the demo fixtures, in under a minute: what fastmcp-bench runs with no arguments.
The table shows the machine's state during each scenario and warns when it was too busy.

Flags:
`

// runOptions are the flags of run (and of the default suite).
type runOptions struct {
	target, name, dialect string
	dialectSet            bool
	tool, arg             string
	pid                   int
	duration, warmup      time.Duration
	durationSet           bool
	connections           int
	rate                  float64
	streams, connCap      int
	fanouts               int
	runs                  int
	drainTimeout          time.Duration
	jsonFile, htmlFile    string
	cpuProfile, memProf   string
	tasksStore            string
	tasksMigrate          bool
}

func (o *runOptions) flags(fs *flag.FlagSet) {
	fs.StringVar(&o.target, "target", "", "endpoint `URL` to drive (a loopback address); default: an embedded endpoint")
	fs.StringVar(&o.name, "name", "", "label of --target in reports")
	fs.StringVar(&o.dialect, "dialect", loadtest.ProtocolVersion, "request form: 2026-07-28 (_meta and mirrored headers) or 2025-11-25 (initialize-era); against --target the default is the revision the target negotiates")
	fs.StringVar(&o.tool, "tool", loadtest.DefaultTool, "with --target: the tool the load calls (it must echo its string argument); checked against the target's tools/list before the load")
	fs.StringVar(&o.arg, "arg", "", "with --target: the tool's string argument the load fills (default: text, or the tool's only string property)")
	fs.IntVar(&o.pid, "pid", 0, "process id of a local --target: memory per stream (VmRSS) and the drain's SIGTERM")
	fs.DurationVar(&o.duration, "duration", loadtest.DefaultDuration, "measured window of each scenario (conncap and slowloris: both phases)")
	fs.DurationVar(&o.warmup, "warmup", loadtest.DefaultWarmup, "unmeasured warm-up before throughput and latency windows")
	fs.IntVar(&o.connections, "connections", loadtest.DefaultConnections, "keep-alive connections of throughput and latency")
	fs.Float64Var(&o.rate, "rate", 0, "requests per second of latency (default: half of the throughput just measured, or probed) and of the legitimate load of conncap and slowloris")
	fs.IntVar(&o.streams, "streams", loadtest.DefaultStreams, "listen streams of sse-keepalive (at most 10000)")
	fs.IntVar(&o.fanouts, "fanouts", loadtest.DefaultFanouts, "list_changed rounds of sse-keepalive")
	fs.IntVar(&o.connCap, "cap", 0, "connection cap of --target, for conncap")
	fs.IntVar(&o.runs, "runs", 0, "consecutive drain runs (default 3 embedded, 1 against --target)")
	fs.DurationVar(&o.drainTimeout, "drain-timeout", 0, "drain timeout of --target, shown beside the drain time")
	fs.StringVar(&o.jsonFile, "json", "", "write the results as JSON to `file`")
	fs.StringVar(&o.htmlFile, "html", "", "write a self-contained HTML report (percentile plot, tables) to `file`")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of this process (generator and embedded endpoint) to `file`")
	fs.StringVar(&o.memProf, "memprofile", "", "write a heap profile of this process to `file` at the end")
	fs.StringVar(&o.tasksStore, "tasks-store", "sqlite", "`store` of the tasks scenario's embedded endpoint: sqlite (a temporary file), sqlite:PATH, memory (no floor) or postgres:DSN")
	fs.BoolVar(&o.tasksMigrate, "tasks-migrate", false, "with --tasks-store postgres:DSN: create or upgrade the task tables first")
}

// legitRate is the legitimate load of the attack scenarios.
func (o *runOptions) legitRate() float64 {
	if o.rate > 0 {
		return o.rate
	}
	return loadtest.DefaultLegitRate
}

// parseInterleaved parses flags and positional arguments in any order.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func scenarioList() string {
	var b strings.Builder
	for _, s := range scenarios {
		fmt.Fprintf(&b, "  %-14s %s\n", s.name, s.summary)
	}
	return b.String()
}

func runCmd(ctx context.Context, args []string) int {
	var o runOptions
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), runUsage, scenarioList())
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), fullLegend(false))
	}
	o.flags(fs)
	names, err := parseInterleaved(fs, args)
	if err != nil {
		return usageStatus(err)
	}
	fs.Visit(func(f *flag.Flag) {
		o.durationSet = o.durationSet || f.Name == "duration"
		o.dialectSet = o.dialectSet || f.Name == "dialect"
	})
	if len(names) == 0 {
		names = defaultSuite
	}
	for _, n := range names {
		if findScenario(n) == nil {
			fmt.Fprintf(os.Stderr, "run: unknown scenario %q\n\n", n)
			fs.Usage()
			return 2
		}
	}
	return runScenarios(ctx, &o, names)
}

// suiteCmd is the default run: the embedded endpoint and the default suite, with the
// flags of run that make sense without a target.
func suiteCmd(ctx context.Context, args []string) int {
	var o runOptions
	fs := flag.NewFlagSet("suite", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), suiteUsage, strings.Join(defaultSuite, ", "))
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), fullLegend(false))
	}
	fs.StringVar(&o.jsonFile, "json", "", "write the results as JSON to `file`")
	fs.StringVar(&o.htmlFile, "html", "", "write a self-contained HTML report to `file`")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile to `file`")
	if err := fs.Parse(args); err != nil {
		return usageStatus(err)
	}
	o.duration, o.warmup = loadtest.DefaultDuration, loadtest.DefaultWarmup
	o.connections, o.streams = loadtest.DefaultConnections, loadtest.DefaultStreams
	return runScenarios(ctx, &o, defaultSuite)
}

// runScenarios runs names in order and prints, and writes, the results.
func runScenarios(ctx context.Context, o *runOptions, names []string) int {
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "run:", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "run:", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	live := newLiveLine(os.Stderr)
	env := &runEnv{o: o, progress: live.update, results: map[string]loadtest.Reporter{}}
	defer env.close()
	where := "an embedded endpoint (demo fixtures, tasks on SQLite, this process)"
	if o.target != "" {
		where = o.target
	}
	live.printf("fastmcp-bench %s: %s against %s, GOMAXPROCS %d", version(), strings.Join(names, ", "), where, runtime.GOMAXPROCS(0))
	if o.target != "" {
		// Before any load: the tool, its argument and the revision, found with the client.
		ti, err := discoverTarget(ctx, o)
		if err != nil {
			fmt.Fprintln(os.Stderr, "run:", err)
			return 1
		}
		o.tool, o.arg, o.dialect = ti.tool, ti.arg, ti.dialect.String()
		live.printf("%s", ti)
	}
	start := time.Now()
	rep := &runReport{Command: "run", Version: version(), Started: start, Target: where}
	whole := loadtest.StartMachine()
	failed := false
	for _, n := range names {
		if ctx.Err() != nil {
			break
		}
		sc := findScenario(n)
		t0 := time.Now()
		meter := loadtest.StartMachine()
		res, err := sc.run(ctx, env)
		machine, _ := stopMachine(meter)
		if err != nil && !errors.Is(err, context.Canceled) {
			live.printf("%-13s FAILED: %v", n, err)
			rep.Failures = append(rep.Failures, n+": "+err.Error())
			failed = true
			continue
		}
		if res == nil {
			continue
		}
		env.results[n] = res
		r := res.Report()
		r.Machine = machine
		rep.add(r, res)
		live.printf("%-13s done in %.1fs%s%s", n, time.Since(t0).Seconds(), errorSuffix(r), machineSuffix(machine))
	}
	rep.Elapsed = time.Since(start)
	rep.Machine, rep.MachineNote = stopMachine(whole)
	printReport(os.Stdout, rep)
	printMachine(os.Stdout, rep)
	printLegend(os.Stdout, rep)
	if err := rep.write(o.jsonFile, o.htmlFile); err != nil {
		fmt.Fprintln(os.Stderr, "run:", err)
		return 1
	}
	if o.memProf != "" {
		if err := writeHeapProfile(o.memProf); err != nil {
			fmt.Fprintln(os.Stderr, "run:", err)
			return 1
		}
	}
	if failed || ctx.Err() != nil {
		return 1
	}
	return 0
}

func errorSuffix(r loadtest.Report) string {
	if n := r.Errors.Total(); n > 0 {
		return fmt.Sprintf(" — %d ERRORS", n)
	}
	return ""
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
