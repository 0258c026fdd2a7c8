package loadtest

import (
	"context"
	"fmt"
	"os"
	"time"
)

// Defaults of the load scenarios.
const (
	DefaultConnections = 32
	DefaultDuration    = 5 * time.Second
	DefaultWarmup      = time.Second
)

// ThroughputConfig configures Throughput: tools/call echo on Connections keep-alive
// connections, each sending its next request as soon as the last one is answered.
type ThroughputConfig struct {
	Target Target
	// Connections is the number of keep-alive connections (DefaultConnections if zero).
	Connections int
	// Duration is the measured window (DefaultDuration if zero).
	Duration time.Duration
	// Warmup runs before the window, unmeasured (DefaultWarmup if zero; negative for none).
	Warmup time.Duration
	// Timeout bounds one request (DefaultTimeout if zero).
	Timeout time.Duration
	// Progress, if set, receives live readings.
	Progress ProgressFunc
	// Engine drives the connections: EngineEpoll (the default where it can: Linux, plain
	// HTTP, replies framed by Content-Length; else the goroutines) or EngineGoroutines.
	Engine string
}

// The engines of a closed loop (ThroughputConfig.Engine). Both check every reply.
const (
	// EngineEpoll drives every connection from one goroutine over raw sockets and epoll, at
	// about the CPU cost per request of wrk: strong enough, on one CPU, to saturate a bare
	// fasthttp server on another.
	EngineEpoll = "epoll"
	// EngineGoroutines gives each connection a goroutine over Go's net package.
	EngineGoroutines = "goroutines"
)

// ThroughputResult is the outcome of Throughput.
type ThroughputResult struct {
	Target      string        `json:"target"`
	Connections int           `json:"connections"`
	Duration    time.Duration `json:"duration_ns"`
	// Requests counts checked successful responses in the window; RPS is per second.
	Requests int64   `json:"requests"`
	RPS      float64 `json:"rps"`
	// Answered counts checked successful responses over the whole run, warmup included: what
	// divides a server counter read before and after the run (allocations per request).
	Answered int64 `json:"answered"`
	// Latency is each request's time from send to checked response.
	Latency Percentiles `json:"latency"`
	// ServerCPU is the server's CPU time per request and ServerCores the cores it used on
	// average, when Target.PID names a local process (else zero).
	ServerCPU   time.Duration `json:"server_cpu_per_request_ns,omitempty"`
	ServerCores float64       `json:"server_cores,omitempty"`
	Errors      Errors        `json:"errors"`
	// Engine names what drove the connections (EngineEpoll or EngineGoroutines).
	Engine string `json:"engine"`
	// GeneratorCPU and GeneratorCores are the same figures for this process, the load's
	// own cost (with an in-process endpoint, the endpoint's too).
	GeneratorCPU   time.Duration `json:"generator_cpu_per_request_ns,omitempty"`
	GeneratorCores float64       `json:"generator_cores,omitempty"`
}

func warmupOf(w time.Duration) time.Duration {
	switch {
	case w < 0:
		return 0
	case w == 0:
		return DefaultWarmup
	}
	return w
}

// Throughput measures the maximum rate of checked echo calls.
func Throughput(ctx context.Context, cfg ThroughputConfig) (*ThroughputResult, error) {
	ep, err := cfg.Target.parse()
	if err != nil {
		return nil, err
	}
	l := &load{
		ep:       ep,
		conns:    orDefault(cfg.Connections, DefaultConnections),
		duration: orDefault(cfg.Duration, DefaultDuration),
		warmup:   warmupOf(cfg.Warmup),
		timeout:  cfg.Timeout,
		epoll:    cfg.Engine != EngineGoroutines,
	}
	l.progress = progressOf(cfg.Progress, "throughput", cfg.Target.label(), "load", l.warmup+l.duration)
	now := time.Now()
	cpu := meterCPU(cfg.Target.PID, cfg.Target.CPUTree, now.Add(l.warmup), now.Add(l.warmup+l.duration))
	self := meterCPU(os.Getpid(), false, now.Add(l.warmup), now.Add(l.warmup+l.duration))
	r := l.run(ctx)
	res := &ThroughputResult{
		Target:      cfg.Target.label(),
		Connections: l.conns,
		Duration:    r.Elapsed,
		Requests:    r.Requests,
		Answered:    r.Answered,
		Latency:     summarize(r.Service),
		Errors:      r.Errors,
		Engine:      l.engine,
	}
	if r.Elapsed > 0 {
		res.RPS = float64(r.Requests) / r.Elapsed.Seconds()
	}
	res.ServerCPU, res.ServerCores = cpu.result(r.Requests)
	res.GeneratorCPU, res.GeneratorCores = self.result(r.Requests)
	return res, ctx.Err()
}

// Report implements Reporter.
func (r *ThroughputResult) Report() Report {
	rep := Report{Scenario: "throughput", Target: r.Target, Errors: r.Errors, Latency: &r.Latency}
	rep.add("rps", r.RPS, UnitRate)
	rep.add("connections", float64(r.Connections), UnitCount)
	rep.add("requests", float64(r.Requests), UnitCount)
	rep.addPercentiles("", r.Latency)
	if r.ServerCPU > 0 {
		rep.addDur("server CPU/request", r.ServerCPU)
		rep.add("server cores", r.ServerCores, UnitCount)
	}
	if r.Errors.Total() > 0 {
		rep.Notes = append(rep.Notes, errorNote(r.Errors, r.Requests))
	}
	return rep
}

func orDefault[T int | time.Duration | float64](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// progressOf adapts f to a load's progress callback.
func progressOf(f ProgressFunc, scenario, target, phase string, total time.Duration) func(time.Duration, int64, int64) {
	if f == nil {
		return nil
	}
	var lastDone int64
	var lastAt time.Duration
	return func(elapsed time.Duration, done, errs int64) {
		p := Progress{Scenario: scenario, Target: target, Phase: phase, Elapsed: elapsed, Duration: total, Done: done, Errors: errs}
		if dt := elapsed - lastAt; dt > 0 {
			p.Rate = float64(done-lastDone) / dt.Seconds()
		}
		lastDone, lastAt = done, elapsed
		f(p)
	}
}

// String is a one-line summary.
func (r *ThroughputResult) String() string {
	return fmt.Sprintf("%s: %.0f req/s on %d connections, p99 %s, errors: %s", r.Target, r.RPS, r.Connections, FormatDuration(r.Latency.P99), r.Errors)
}
