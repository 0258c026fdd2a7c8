package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// scenario is one runnable scenario of `run` and of the default suite.
type scenario struct {
	name, summary string
	run           func(ctx context.Context, e *runEnv) (loadtest.Reporter, error)
}

// scenarios lists every scenario in the order run runs them.
var scenarios = []scenario{
	{"throughput", "tools/call echo, JSON responses, closed loop at the maximum rate", runThroughput},
	{"latency", "open loop at a fixed rate (default: half the maximum): p50…p99.9, max", runLatency},
	{"conncap", "more connections than the cap while legitimate load runs", runConnCap},
	{"sse-keepalive", "N listen streams: keepalive cadence, list_changed fan-out, memory per stream", runStreams},
	{"drain", "shutdown in the middle of load: admitted requests lost, streams completed", runDrain},
	{"slowloris", "clients trickling heads and bodies during legitimate load", runSlowloris},
	{"progress", "a tool reporting progress over SSE: events per second", runProgress},
	{"tasks", "tasks created (Tasks extension, --tasks-store) beside the store's INSERT + COMMIT floor, a share cancelled, all polled to the end", runTasks},
}

// defaultSuite is what fastmcp-bench runs with no arguments.
var defaultSuite = []string{"throughput", "latency", "conncap", "sse-keepalive", "drain"}

func findScenario(name string) *scenario {
	for i := range scenarios {
		if scenarios[i].name == name {
			return &scenarios[i]
		}
	}
	return nil
}

// Settings of the embedded endpoint's scenarios, sized so the default suite stays within 60 s
// on two cores.
const (
	embeddedCap          = 64
	embeddedKeepAlive    = time.Second
	embeddedDrainTimeout = 2 * time.Second
	embeddedSlowTimeout  = time.Second
)

// runEnv is what scenarios share during one run.
type runEnv struct {
	o        *runOptions
	progress loadtest.ProgressFunc
	// shared is the embedded endpoint for the scenarios that need no special limits.
	shared *embedded
	// results so far, by scenario (latency reads the throughput result).
	results map[string]loadtest.Reporter
}

// external reports whether the run targets an endpoint given with --target.
func (e *runEnv) external() bool { return e.o.target != "" }

// target returns the --target endpoint, or the shared embedded one.
func (e *runEnv) target() (loadtest.Target, error) {
	if e.external() {
		d, err := loadtest.ParseDialect(e.o.dialect)
		if err != nil {
			return loadtest.Target{}, err
		}
		return loadtest.Target{URL: e.o.target, Name: e.o.name, PID: e.o.pid, Dialect: d, Tool: e.o.tool, ArgName: e.o.arg}, nil
	}
	if e.shared == nil {
		s, err := startEmbedded(streamable.ListenerConfig{}, false)
		if err != nil {
			return loadtest.Target{}, err
		}
		e.shared = s
	}
	return e.shared.target(), nil
}

func (e *runEnv) close() {
	if e.shared != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = e.shared.shutdown(ctx)
		cancel()
		e.shared = nil
	}
}

// withEmbedded runs f against a dedicated embedded endpoint with cfg, shut down after.
func withEmbedded(cfg streamable.ListenerConfig, f func(loadtest.Target) (loadtest.Reporter, error)) (loadtest.Reporter, error) {
	s, err := startEmbedded(cfg, false)
	if err != nil {
		return nil, err
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = s.shutdown(ctx)
		cancel()
	}()
	return f(s.target())
}

func runThroughput(ctx context.Context, e *runEnv) (loadtest.Reporter, error) {
	t, err := e.target()
	if err != nil {
		return nil, err
	}
	return loadtest.Throughput(ctx, loadtest.ThroughputConfig{
		Target: t, Connections: e.o.connections, Duration: e.o.duration, Warmup: e.o.warmup, Progress: e.progress,
	})
}

func runLatency(ctx context.Context, e *runEnv) (loadtest.Reporter, error) {
	t, err := e.target()
	if err != nil {
		return nil, err
	}
	rate := e.o.rate
	if tr, ok := e.results["throughput"].(*loadtest.ThroughputResult); ok && rate == 0 && tr.RPS > 0 {
		rate = tr.RPS / 2 // half of the maximum just measured
	}
	return loadtest.Latency(ctx, loadtest.LatencyConfig{
		Target: t, Rate: rate, Connections: e.o.connections, Duration: e.o.duration, Warmup: e.o.warmup, Progress: e.progress,
	})
}

func runConnCap(ctx context.Context, e *runEnv) (loadtest.Reporter, error) {
	phase := e.o.duration / 2
	if !e.o.durationSet {
		phase = 2 * time.Second
	}
	cfg := loadtest.ConnCapConfig{Phase: phase, Rate: e.o.legitRate(), Progress: e.progress}
	if e.external() {
		if e.o.connCap <= 0 {
			return nil, errors.New("conncap against --target needs --cap (the endpoint's connection cap)")
		}
		t, err := e.target()
		if err != nil {
			return nil, err
		}
		cfg.Target, cfg.Cap = t, e.o.connCap
		return loadtest.ConnCap(ctx, cfg)
	}
	return withEmbedded(streamable.ListenerConfig{MaxConnections: embeddedCap}, func(t loadtest.Target) (loadtest.Reporter, error) {
		cfg.Target, cfg.Cap = t, embeddedCap
		return loadtest.ConnCap(ctx, cfg)
	})
}

func runStreams(ctx context.Context, e *runEnv) (loadtest.Reporter, error) {
	n := e.o.streams
	if n == 0 {
		n = loadtest.DefaultStreams
	}
	window := e.o.duration
	if !e.o.durationSet {
		window = 3 * time.Second
	}
	bin, err := self()
	if err != nil {
		return nil, err
	}
	// The write floor runs as a process of its own, as the server does, here or at --target.
	cfg := loadtest.StreamsConfig{Streams: n, Duration: window, Fanouts: e.o.fanouts, Progress: e.progress, Floor: childFloor(bin)}
	if e.external() {
		t, err := e.target()
		if err != nil {
			return nil, err
		}
		cfg.Target = t
		if t.PID <= 0 {
			return loadtest.Streams(ctx, cfg) // no memory figure
		}
		return measureStreams(ctx, cfg, &streamsProbe{pid: t.PID})
	}
	// The endpoint runs as a child process so that its memory is not mixed with the
	// generator's: its runtime gives the heap and stacks, /proc its resident set.
	c, err := startChild(ctx, "fastmcp serve", -1, bin, "serve", "--addr", "127.0.0.1:0", "--fixtures", "demo",
		"--max-subscriptions", strconv.Itoa(n), "--max-connections", strconv.Itoa(n+256),
		"--keepalive-interval", embeddedKeepAlive.String(), "--drain-timeout", "1s", "--pprof", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer c.stop()
	cfg.Target = loadtest.Target{URL: c.url, Name: "fastmcp", PID: c.pid()}
	return measureStreams(ctx, cfg, &streamsProbe{heap: c.memory, pid: c.pid()})
}

func runDrain(ctx context.Context, e *runEnv) (loadtest.Reporter, error) {
	cfg := loadtest.DrainConfig{Runs: e.o.runs, Progress: e.progress}
	if e.external() {
		if e.o.pid <= 0 {
			return nil, errors.New("drain against --target needs --pid (the server process to send SIGTERM)")
		}
		t, err := e.target()
		if err != nil {
			return nil, err
		}
		cfg.Runs = 1
		cfg.DrainTimeout = e.o.drainTimeout
		cfg.Start = func(context.Context, int) (*loadtest.DrainTarget, error) {
			return &loadtest.DrainTarget{Target: t, Shutdown: func(ctx context.Context) error { return terminatePID(ctx, t.PID) }}, nil
		}
		return loadtest.Drain(ctx, cfg)
	}
	if cfg.Runs == 0 {
		cfg.Runs = 3
	}
	cfg.DrainTimeout = embeddedDrainTimeout
	cfg.Start = func(context.Context, int) (*loadtest.DrainTarget, error) {
		s, err := startEmbedded(streamable.ListenerConfig{Config: streamable.Config{DrainTimeout: embeddedDrainTimeout}}, true)
		if err != nil {
			return nil, err
		}
		return s.drainTarget(), nil
	}
	return loadtest.Drain(ctx, cfg)
}

func runSlowloris(ctx context.Context, e *runEnv) (loadtest.Reporter, error) {
	cfg := loadtest.SlowlorisConfig{Rate: e.o.legitRate(), Progress: e.progress}
	if e.external() {
		t, err := e.target()
		if err != nil {
			return nil, err
		}
		cfg.Target, cfg.Phase = t, e.o.duration
		return loadtest.Slowloris(ctx, cfg)
	}
	cfg.Phase = 2500 * time.Millisecond
	return withEmbedded(streamable.ListenerConfig{HeadTimeout: embeddedSlowTimeout, Config: streamable.Config{BodyTimeout: embeddedSlowTimeout}},
		func(t loadtest.Target) (loadtest.Reporter, error) {
			cfg.Target = t
			return loadtest.Slowloris(ctx, cfg)
		})
}

func runProgress(ctx context.Context, e *runEnv) (loadtest.Reporter, error) {
	t, err := e.target()
	if err != nil {
		return nil, err
	}
	return loadtest.ProgressScenario(ctx, loadtest.ProgressConfig{Target: t, Duration: e.o.duration, Progress: e.progress})
}

// terminatePID sends SIGTERM to a local server and waits until it exits.
func terminatePID(ctx context.Context, pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	if err := p.Signal(syscall.SIGTERM); err != nil {
		return fmt.Errorf("signal pid %d: %w", pid, err)
	}
	for {
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err != nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}
