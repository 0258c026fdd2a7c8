package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
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

	"github.com/fastmcp-go/fastmcp/bench/clientbench"
	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

func init() {
	register(command{
		Name:    "compare-clients",
		Summary: "client-side cost per tools/call: the fastmcp client (both eras, and in-process) beside go-sdk's and mcp-go's",
		Run:     compareClientsCmd,
	})
}

const compareClientsUsage = `Usage: fastmcp-bench compare-clients [flags]

Measures the client side of a tools/call echo against one fastmcp server (fastmcp-bench
serve, demo fixtures, its own process on 127.0.0.1), side by side in one run: the fastmcp
client in 2026-07-28 and in the initialize era (2025-11-25), go-sdk's and mcp-go's clients
(bench/peers/clients, built here with the Go toolchain, in each SDK's default revision and
pinned to the initialize era), and the fastmcp client in-process (inprocess.Connect, no
transport: its figures include the server's work), and the fastmcp client with client/oauth
against a second fastmcp server that is an OAuth resource server (JWTs of a test issuer this
process runs; the first call authorizes, the measured ones use the cached token), printed
as the OAuth path's cost per call beside the plain line. Every client runs in its own process, one
after another, in interleaved rounds (odd rounds in reverse order); the table shows medians
(min–max) of the rounds.

Each client connects, checks one call, then measures two phases, each --warmup unmeasured and
--duration measured: one caller (µs per call, the client process's CPU per call, heap
allocations and bytes per call, from runtime.MemStats and getrusage over the measured calls)
and --callers goroutines sharing the one client (calls per second, CPU and allocations per
call). Ratios compare fastmcp with the faster peer client of the same revision; the goal is
fastmcp's rate at least 5× the faster peer client's. --pin puts the server on CPU 0 and the
clients on CPU 1 (taskset). --quick is a bounded first look.

Flags:
`

// compareClientsOptions are the flags of compare-clients.
type compareClientsOptions struct {
	rounds, callers  int
	duration, warmup time.Duration
	peersDir         string
	jsonFile         string
	cpuProfile       string
	pin, quick       bool
}

func (o *compareClientsOptions) flags(fs *flag.FlagSet) {
	fs.IntVar(&o.rounds, "rounds", 3, "interleaved rounds; the table shows medians")
	fs.IntVar(&o.callers, "callers", 32, "concurrent callers sharing one client in the second phase")
	fs.DurationVar(&o.duration, "duration", time.Second, "measured window of each phase")
	fs.DurationVar(&o.warmup, "warmup", 200*time.Millisecond, "unmeasured calls before each phase")
	fs.StringVar(&o.peersDir, "peers-dir", "", "`directory` of the bench/peers module (default: found from the working directory)")
	fs.StringVar(&o.jsonFile, "json", "", "write the results as JSON to `file`")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of each client's first round to `prefix`.CLIENT@REVISION.prof")
	fs.BoolVar(&o.pin, "pin", false, "the server on CPU 0, the clients on CPU 1 (taskset)")
	fs.BoolVar(&o.quick, "quick", false, "a bounded first look (and what tests run): --rounds 2 --duration 200ms --warmup 50ms --callers 8, unless set")
}

// applyQuick sets the --quick values of the flags the command line did not set.
func (o *compareClientsOptions) applyQuick(fs *flag.FlagSet) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for name, apply := range map[string]func(){
		"rounds":   func() { o.rounds = 2 },
		"duration": func() { o.duration = 200 * time.Millisecond },
		"warmup":   func() { o.warmup = 50 * time.Millisecond },
		"callers":  func() { o.callers = 8 },
	} {
		if !set[name] {
			apply()
		}
	}
}

// parseCompareClients parses the flags; a usage error returns code 2 (0 for -h).
func parseCompareClients(args []string) (*compareClientsOptions, int) {
	var o compareClientsOptions
	fs := flag.NewFlagSet("compare-clients", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), compareClientsUsage)
		fs.PrintDefaults()
	}
	o.flags(fs)
	if err := fs.Parse(args); err != nil {
		return nil, usageStatus(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "compare-clients: no arguments expected, got %q\n", fs.Args())
		return nil, 2
	}
	if o.quick {
		o.applyQuick(fs)
	}
	switch {
	case o.rounds < 1:
		fmt.Fprintln(os.Stderr, "compare-clients: --rounds must be at least 1")
		return nil, 2
	case o.callers < 1:
		fmt.Fprintln(os.Stderr, "compare-clients: --callers must be at least 1")
		return nil, 2
	case o.duration <= 0 || o.warmup < 0:
		fmt.Fprintln(os.Stderr, "compare-clients: --duration must be positive and --warmup not negative")
		return nil, 2
	}
	return &o, -1
}

// clientLine is one row of compare-clients: a client in one era.
type clientLine struct {
	Name   string `json:"name"`   // fastmcp, go-sdk, mcp-go, fastmcp-direct
	Era    string `json:"era"`    // modern (2026-07-28 pinned) or legacy (initialize pinned)
	Peer   bool   `json:"peer"`   // a peer SDK's client, run by bench/peers/clients
	Direct bool   `json:"direct"` // in-process, no transport: not compared with the peers
	// OAuth: the fastmcp client with client/oauth against the same server as an OAuth
	// resource server (a bearer JWT, cached after the first call): its cost beside the
	// fastmcp line of its era, not compared with the peers.
	OAuth bool `json:"oauth,omitempty"`
}

// key names a line: name@era.
func (l clientLine) key() string { return l.Name + "@" + l.Era }

const (
	nameDirect = "fastmcp-direct"
	nameOAuth  = "fastmcp-oauth"
)

// clientLines are the rows, in the order of an even round.
var clientLines = []clientLine{
	{Name: nameFastmcp, Era: "modern"},
	{Name: nameFastmcp, Era: "legacy"},
	{Name: "go-sdk", Era: "modern", Peer: true},
	{Name: "go-sdk", Era: "legacy", Peer: true},
	{Name: "mcp-go", Era: "modern", Peer: true},
	{Name: "mcp-go", Era: "legacy", Peer: true},
	{Name: nameDirect, Era: "modern", Direct: true},
	{Name: nameOAuth, Era: "modern", OAuth: true},
}

func compareClientsCmd(ctx context.Context, args []string) int {
	o, code := parseCompareClients(args)
	if o == nil {
		return code
	}
	live := newLiveLine(os.Stderr)
	bin, err := self()
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare-clients:", err)
		return 1
	}
	peersBin, err := buildPeerProgram(ctx, o.peersDir, "clients", live)
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare-clients:", err)
		return 1
	}
	serverCPU, clientCPU := -1, -1
	if o.pin {
		if runtime.NumCPU() < 2 {
			fmt.Fprintln(os.Stderr, "compare-clients: --pin needs two CPUs")
			return 1
		}
		serverCPU, clientCPU = 0, 1
	}
	srv, err := startChild(ctx, nameFastmcp, serverCPU, bin, "serve", "--addr", "127.0.0.1:0", "--fixtures", "demo", "--tasks-store", "off")
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare-clients:", err)
		return 1
	}
	defer srv.stop()
	protected, stopProtected, err := startProtectedServer(ctx, bin, serverCPU)
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare-clients:", err)
		return 1
	}
	defer stopProtected()

	cc := &clientComparison{Server: srv.url, Protected: protected, Rounds: o.rounds, Callers: o.callers, Duration: o.duration, Warmup: o.warmup,
		Pinned: o.pin, Lines: clientLines, Results: map[string][]clientbench.Result{}, Machine: map[string][]*loadtest.MachineState{}}
	per := 2*(o.warmup+o.duration) + 300*time.Millisecond // two phases and the process's start
	live.printf("fastmcp-bench compare-clients: %d clients × %d rounds × 2 phases of %s (+%s warm-up) against %s, %d callers, GOMAXPROCS %d: about %s",
		len(clientLines), o.rounds, o.duration, o.warmup, srv.url, o.callers, runtime.GOMAXPROCS(0),
		(time.Duration(len(clientLines)*o.rounds) * per).Round(time.Second))
	rep := &runReport{Command: "compare-clients", Version: version(), Started: time.Now(), Target: srv.url, Clients: cc}
	whole := loadtest.StartMachine()
	for round := range o.rounds {
		order := slices.Clone(clientLines)
		if round%2 == 1 {
			slices.Reverse(order)
		}
		for _, l := range order {
			if ctx.Err() != nil {
				return 1
			}
			url := srv.url
			if l.OAuth {
				url = protected
			}
			argv := workerArgv(o, l, bin, peersBin, url, round)
			if clientCPU >= 0 {
				argv = append([]string{"taskset", "-c", strconv.Itoa(clientCPU)}, argv...)
			}
			meter := loadtest.StartMachine()
			res, err := runWorker(ctx, argv, per+2*clientbench.PhaseGrace+15*time.Second) // connect, then two phases at most
			machine, _ := stopMachine(meter)
			if err != nil {
				live.printf("round %d/%d  %-22s FAILED: %v", round+1, o.rounds, l.key(), err)
				rep.Failures = append(rep.Failures, fmt.Sprintf("%s round %d: %v", l.key(), round+1, err))
				continue
			}
			cc.record(l, res, machine)
			live.printf("round %d/%d  %-22s %s: %s calls/s (%d callers), %s/call and %.0f allocs/call (1 caller)%s",
				round+1, o.rounds, l.key(), res.Protocol, humanRate(res.Concurrent.CallsPerSecond), res.Concurrent.Callers,
				fmtDuration(res.Sequential.NsPerCall), res.Sequential.AllocsPerCall, machineSuffix(machine))
		}
	}
	cc.summarize()
	rep.Elapsed = time.Since(rep.Started)
	rep.Machine, rep.MachineNote = stopMachine(whole)
	for _, l := range clientLines {
		if busiest := cc.busiest(l.key()); busiest != nil {
			rep.Reports = append(rep.Reports, loadtest.Report{Scenario: "compare-clients", Target: l.key(), Machine: busiest})
		}
	}
	printClientComparison(os.Stdout, rep)
	printMachine(os.Stdout, rep)
	if err := rep.write(o.jsonFile, ""); err != nil {
		fmt.Fprintln(os.Stderr, "compare-clients:", err)
		return 1
	}
	if len(rep.Failures) > 0 {
		return 1
	}
	return 0
}

// workerArgv is the command line measuring l: this binary's client-worker for the fastmcp
// client, bench/peers/clients for a peer.
func workerArgv(o *compareClientsOptions, l clientLine, bin, peersBin, url string, round int) []string {
	argv := []string{bin, "client-worker", "-client", "fastmcp"}
	switch {
	case l.Peer:
		argv = []string{peersBin, "-client", l.Name}
	case l.Direct:
		argv = []string{bin, "client-worker", "-client", "direct"}
	case l.OAuth:
		argv = []string{bin, "client-worker", "-client", "oauth"}
	}
	argv = append(argv, "-era", l.Era, "-callers", strconv.Itoa(o.callers),
		"-warmup", o.warmup.String(), "-duration", o.duration.String())
	if !l.Direct {
		argv = append(argv, "-url", url)
	}
	if o.cpuProfile != "" && round == 0 {
		argv = append(argv, "-cpuprofile", o.cpuProfile+"."+l.key()+".prof")
	}
	return argv
}

// runWorker runs one client's measurement and parses its JSON line.
func runWorker(ctx context.Context, argv []string, timeout time.Duration) (clientbench.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return clientbench.Result{}, fmt.Errorf("%s: %v: %s", filepath.Base(argv[0]), err, strings.TrimSpace(stderr.String()))
	}
	return parseClientResult(stdout.Bytes())
}

// parseClientResult reads a worker's output: its last line is the JSON result, whose fields
// must all be known (the peers' program and client-worker print the same shape).
func parseClientResult(out []byte) (clientbench.Result, error) {
	var r clientbench.Result
	var last []byte
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			last = line
		}
	}
	if last == nil {
		return r, errors.New("the worker printed no result")
	}
	dec := json.NewDecoder(bytes.NewReader(last))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return r, fmt.Errorf("the worker's result %.200q: %w", last, err)
	}
	if r.Protocol == "" || r.Sequential.Calls <= 0 || r.Concurrent.Calls <= 0 {
		return r, fmt.Errorf("the worker's result %.200q has no protocol or no calls", last)
	}
	return r, nil
}

// buildPeerProgram builds one program of bench/peers into the user cache and returns its path.
func buildPeerProgram(ctx context.Context, dir, sub string, live *liveLine) (string, error) {
	if dir == "" {
		var err error
		if dir, err = findPeersDir(); err != nil {
			return "", err
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	out := filepath.Join(cache, "fastmcp-bench", "peers")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("the peers are built with the go command, which is not on PATH: %w", err)
	}
	bin := filepath.Join(out, sub)
	live.printf("building bench/peers/%s…", sub)
	cmd := exec.CommandContext(ctx, goCmd, "build", "-o", bin, "./"+sub)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./%s in %s: %v\n%s", sub, dir, err, b)
	}
	return bin, nil
}
