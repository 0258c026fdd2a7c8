package loadtest

import (
	"context"
	"fmt"
	"time"
)

// DefaultProbeDuration is how long Latency measures the maximum rate when no Rate is given.
const DefaultProbeDuration = 2 * time.Second

// LatencyConfig configures Latency: an open loop sending echo calls at a constant Rate.
// Each latency is measured from the request's intended send time, so a stalled server (or
// a stalled generator) cannot hide its queueing: no coordinated omission.
type LatencyConfig struct {
	Target Target
	// Rate is the request rate per second. If zero, Latency first measures the maximum rate
	// for DefaultProbeDuration (closed loop, same connections) and uses RateFraction of it.
	Rate float64
	// RateFraction of the probed maximum (0.5 if zero).
	RateFraction float64
	// Connections carry the load (DefaultConnections if zero); a request due while all are
	// busy waits, and its wait counts.
	Connections int
	// Duration is the measured window (DefaultDuration if zero).
	Duration time.Duration
	// Warmup runs before the window at the same rate, unmeasured (DefaultWarmup if zero;
	// negative for none).
	Warmup  time.Duration
	Timeout time.Duration
	// Progress, if set, receives live readings.
	Progress ProgressFunc
}

// LatencyResult is the outcome of Latency.
type LatencyResult struct {
	Target      string        `json:"target"`
	Rate        float64       `json:"rate"`
	ProbedMax   float64       `json:"probed_max_rps,omitempty"`
	Connections int           `json:"connections"`
	Duration    time.Duration `json:"duration_ns"`
	Requests    int64         `json:"requests"`
	// Achieved is the rate of checked successful responses.
	Achieved float64 `json:"achieved_rps"`
	// Latency is from each request's intended send time to its checked response.
	Latency Percentiles `json:"latency"`
	// Service is from the actual send to the response: Latency minus any wait for a
	// connection or for the generator.
	Service Percentiles `json:"service"`
	// Lag is how late requests were sent (generator or connections saturated).
	Lag Percentiles `json:"lag"`
	// PacerLag is how late the generator handed the requests out, whatever the connections
	// did: its own delay. Past PacerLagLimit, the latencies are the generator's.
	PacerLag Percentiles `json:"pacer_lag"`
	// Backlog counts requests due in the window that were never sent: the endpoint could not
	// keep up with the rate on these connections.
	Backlog int64  `json:"backlog"`
	Errors  Errors `json:"errors"`
	// ServerCPU is the server's CPU time per request and ServerCores the cores it used on
	// average, when Target.PID names a local process (else zero): at a fixed rate, what a
	// server spends per call at that rate, beside Throughput's at its maximum.
	ServerCPU   time.Duration `json:"server_cpu_per_request_ns,omitempty"`
	ServerCores float64       `json:"server_cores,omitempty"`
}

// MetricGeneratorLag names LatencyResult.PacerLag's p99 in the report; PacerLagLimit is
// where the generator's own delay starts to be what a latency goal would judge.
const (
	MetricGeneratorLag = "generator lag p99"
	PacerLagLimit      = 100 * time.Microsecond
)

// Latency measures latency percentiles at a fixed rate.
func Latency(ctx context.Context, cfg LatencyConfig) (*LatencyResult, error) {
	ep, err := cfg.Target.parse()
	if err != nil {
		return nil, err
	}
	conns := orDefault(cfg.Connections, DefaultConnections)
	res := &LatencyResult{Target: cfg.Target.label(), Connections: conns, Rate: cfg.Rate}
	if res.Rate <= 0 {
		probe := &load{ep: ep, conns: conns, duration: DefaultProbeDuration, warmup: 250 * time.Millisecond, timeout: cfg.Timeout}
		probe.progress = progressOf(cfg.Progress, "latency", cfg.Target.label(), "probe", probe.warmup+probe.duration)
		pr := probe.run(ctx)
		if pr.Requests == 0 {
			return nil, fmt.Errorf("%w: the rate probe got no successful response (%s)", ErrTargetDown, pr.Errors)
		}
		res.ProbedMax = float64(pr.Requests) / pr.Elapsed.Seconds()
		res.Rate = res.ProbedMax * orDefault(cfg.RateFraction, 0.5)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	l := &load{
		ep:       ep,
		conns:    conns,
		duration: orDefault(cfg.Duration, DefaultDuration),
		warmup:   warmupOf(cfg.Warmup),
		rate:     res.Rate,
		timeout:  cfg.Timeout,
	}
	l.progress = progressOf(cfg.Progress, "latency", cfg.Target.label(), fmt.Sprintf("%.0f req/s", res.Rate), l.warmup+l.duration)
	now := time.Now()
	cpu := meterCPU(cfg.Target.PID, cfg.Target.CPUTree, now.Add(l.warmup), now.Add(l.warmup+l.duration))
	r := l.run(ctx)
	res.ServerCPU, res.ServerCores = cpu.result(r.Requests)
	res.Duration = r.Elapsed
	res.Requests = r.Requests
	if r.Elapsed > 0 {
		res.Achieved = float64(r.Requests) / r.Elapsed.Seconds()
	}
	res.Latency = summarize(r.Latency)
	res.Service = summarize(r.Service)
	res.Lag = summarize(r.Lag)
	res.PacerLag = summarize(r.PacerLag)
	res.Backlog = r.Backlog
	res.Errors = r.Errors
	return res, ctx.Err()
}

// Report implements Reporter.
func (r *LatencyResult) Report() Report {
	rep := Report{Scenario: "latency", Target: r.Target, Errors: r.Errors, Latency: &r.Latency}
	rep.add("rate", r.Rate, UnitRate)
	rep.add("achieved", r.Achieved, UnitRate)
	rep.addPercentiles("", r.Latency)
	rep.addDur("service p99", r.Service.P99)
	rep.addDur("send lag p99", r.Lag.P99)
	rep.addDur(MetricGeneratorLag, r.PacerLag.P99)
	rep.add("backlog", float64(r.Backlog), UnitCount)
	if r.ServerCPU > 0 {
		rep.addDur("server CPU/request", r.ServerCPU)
		rep.add("server cores", r.ServerCores, UnitCount)
	}
	if r.Backlog > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("BACKLOG: %d requests fell due but were never sent: the endpoint did not keep up with %.0f req/s on %d connections", r.Backlog, r.Rate, r.Connections))
	}
	if r.Errors.Total() > 0 {
		rep.Notes = append(rep.Notes, errorNote(r.Errors, r.Requests))
	}
	return rep
}
