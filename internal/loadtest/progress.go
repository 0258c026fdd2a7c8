package loadtest

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of ProgressScenario.
const (
	DefaultProgressTool = "sleep"
	DefaultProgressCall = 200 * time.Millisecond
)

// ProgressConfig configures ProgressScenario: Connections keep calling a tool that reports
// progress (the demo's sleep, {"ms":N}, with a progressToken), each answered as an event
// stream of progress notifications ending with the result.
type ProgressConfig struct {
	Target Target
	// Tool is the tool called (DefaultProgressTool); its arguments are {"ms": Call}.
	Tool string
	// Call is how long each call runs (DefaultProgressCall if zero).
	Call time.Duration
	// Connections call in parallel (DefaultLegitConnections if zero).
	Connections int
	// Duration is the measured window (DefaultDuration if zero).
	Duration time.Duration
	Timeout  time.Duration
	// Progress, if set, receives live readings.
	Progress ProgressFunc
}

// ProgressResult is the outcome of ProgressScenario.
type ProgressResult struct {
	Target string `json:"target"`
	// Calls counts the checked replies; Events the progress notifications they carried.
	Calls, Events int64
	Duration      time.Duration `json:"duration_ns"`
	// EventsPerSecond is Events over Duration; PerCall is the mean per call.
	EventsPerSecond float64 `json:"events_per_second"`
	PerCall         float64 `json:"events_per_call"`
	// Latency is each call's time from send to its final response.
	Latency Percentiles `json:"latency"`
	Errors  Errors      `json:"errors"`
}

// ProgressScenario measures the rate of progress events over request-scoped streams.
func ProgressScenario(ctx context.Context, cfg ProgressConfig) (*ProgressResult, error) {
	ep, err := cfg.Target.parse()
	if err != nil {
		return nil, err
	}
	tool := cfg.Tool
	if tool == "" {
		tool = DefaultProgressTool
	}
	call := orDefault(cfg.Call, DefaultProgressCall)
	n := orDefault(cfg.Connections, DefaultLegitConnections)
	window := orDefault(cfg.Duration, DefaultDuration)
	timeout := orDefault(cfg.Timeout, DefaultTimeout)
	start := time.Now()
	end := start.Add(window)
	hist := newHist()
	res := &ProgressResult{Target: cfg.Target.label()}
	var mu sync.Mutex
	var calls, events, errs atomic.Int64
	var wg sync.WaitGroup
	for w := range n {
		wg.Go(func() {
			var c *conn
			defer func() {
				if c != nil {
					c.close()
				}
			}()
			for id := int64(w); time.Now().Before(end) && ctx.Err() == nil; id += int64(n) {
				if c == nil {
					var err error
					if c, err = dialConn(ctx, ep, timeout); err != nil {
						mu.Lock()
						res.Errors.add(KindDial, 1)
						mu.Unlock()
						errs.Add(1)
						time.Sleep(10 * time.Millisecond)
						continue
					}
					ep.setHeaders(&c.req, "tools/call", tool)
				}
				idLit := strconv.FormatInt(id, 10)
				c.id = append(c.id[:0], idLit...)
				c.req.SetBodyRaw(ep.requestBody(idLit, "tools/call",
					`"name":"`+tool+`","arguments":{"ms":`+strconv.FormatInt(call.Milliseconds(), 10)+`}`,
					`"progressToken":"p`+idLit+`"`))
				sent := time.Now()
				kind, fatal := c.roundTrip(sent, nil)
				got := time.Now()
				if kind == "" {
					_, ev := lastEvent(c.resp.Body())
					calls.Add(1)
					events.Add(int64(max(ev-1, 0))) // the last event is the reply
					mu.Lock()
					record(hist, got.Sub(sent))
					mu.Unlock()
				} else {
					errs.Add(1)
					mu.Lock()
					res.Errors.add(kind, 1)
					mu.Unlock()
				}
				if fatal {
					c.close()
					c = nil
				}
			}
		})
	}
	if cfg.Progress != nil {
		tick := time.NewTicker(250 * time.Millisecond)
		for time.Now().Before(end) && ctx.Err() == nil {
			select {
			case <-tick.C:
			case <-ctx.Done():
			}
			cfg.Progress(Progress{Scenario: "progress", Target: res.Target, Phase: "calls", Elapsed: time.Since(start), Duration: window, Done: events.Load(), Errors: errs.Load()})
		}
		tick.Stop()
	}
	wg.Wait()
	res.Duration = time.Since(start)
	res.Calls, res.Events = calls.Load(), events.Load()
	res.EventsPerSecond = float64(res.Events) / res.Duration.Seconds()
	if res.Calls > 0 {
		res.PerCall = float64(res.Events) / float64(res.Calls)
	}
	res.Latency = summarize(hist)
	return res, ctx.Err()
}

// Report implements Reporter.
func (r *ProgressResult) Report() Report {
	rep := Report{Scenario: "progress", Target: r.Target, Errors: r.Errors, Latency: &r.Latency}
	rep.add("events/s", r.EventsPerSecond, UnitPerSec)
	rep.add("events/call", r.PerCall, UnitCount)
	rep.add("calls", float64(r.Calls), UnitCount)
	rep.addDur("call p99", r.Latency.P99)
	if r.Errors.Total() > 0 {
		rep.Notes = append(rep.Notes, errorNote(r.Errors, r.Calls))
	}
	return rep
}
