package loadtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of the attack scenarios (conncap, slowloris): a legitimate open-loop load at
// DefaultLegitRate on DefaultLegitConnections, measured without the attack, then with it.
const (
	DefaultLegitRate        = 2000
	DefaultLegitConnections = 8
	DefaultPhase            = 3 * time.Second
)

// ConnCapConfig configures ConnCap: while a legitimate load runs, it opens more connections
// than the endpoint's cap, each sending one echo call, in waves until the phase ends.
type ConnCapConfig struct {
	Target Target
	// Cap is the endpoint's connection cap (required).
	Cap int
	// Excess is how many connections the flood opens beyond the cap (Cap if zero).
	Excess int
	// Connections and Rate are the legitimate load (DefaultLegitConnections,
	// DefaultLegitRate if zero); its connections open before the flood and count toward
	// the cap.
	Connections int
	Rate        float64
	// Phase is the length of each phase: without, then with the flood (DefaultPhase).
	Phase   time.Duration
	Timeout time.Duration
	// Progress, if set, receives live readings.
	Progress ProgressFunc
}

// ConnCapResult is the outcome of ConnCap.
type ConnCapResult struct {
	Target string `json:"target"`
	Cap    int    `json:"cap"`
	// Flood counts the flood's connection attempts; Admitted those answered (held open
	// until the end); ClosedUnread those closed without any response byte; Expected the
	// attempts beyond the cap, which should all have been closed unread.
	Flood, Admitted, ClosedUnread, Expected int64
	// FloodErrors are flood attempts that ended otherwise (a timeout means the endpoint
	// neither served nor closed the connection).
	FloodErrors Errors `json:"flood_errors"`
	// Baseline is the legitimate latency without the flood, UnderFlood with it.
	Baseline, UnderFlood Percentiles
	// Errors are the legitimate load's failures.
	Errors Errors `json:"errors"`
}

// twoPhaseLoad is the legitimate open-loop load of conncap and slowloris: a warm-up, a phase
// without the attack, then one with it (from l.split), ending at end.
func twoPhaseLoad(ep *endpoint, conns int, rate float64, phase, timeout time.Duration) (l *load, end time.Time) {
	l = &load{
		ep:       ep,
		conns:    orDefault(conns, DefaultLegitConnections),
		rate:     orDefault(rate, DefaultLegitRate),
		duration: 2 * phase,
		warmup:   500 * time.Millisecond,
		timeout:  timeout,
	}
	start := time.Now()
	l.split = start.Add(l.warmup + phase)
	return l, start.Add(l.warmup + l.duration)
}

// ConnCap runs the connection-cap scenario.
func ConnCap(ctx context.Context, cfg ConnCapConfig) (*ConnCapResult, error) {
	ep, err := cfg.Target.parse()
	if err != nil {
		return nil, err
	}
	if cfg.Cap <= 0 {
		return nil, errors.New("loadtest: conncap needs the endpoint's connection cap")
	}
	phase := orDefault(cfg.Phase, DefaultPhase)
	l, end := twoPhaseLoad(ep, cfg.Connections, cfg.Rate, phase, cfg.Timeout)
	l.progress = progressOf(cfg.Progress, "conncap", cfg.Target.label(), "legitimate load, then flood", l.warmup+l.duration)
	excess := orDefault(cfg.Excess, cfg.Cap)
	slots := max(cfg.Cap-l.conns, 0) + excess

	fl := &flood{ep: ep, slots: slots, timeout: 2 * time.Second}
	var wg sync.WaitGroup
	wg.Go(func() {
		select {
		case <-time.After(time.Until(l.split)):
			// The flood stops before the legitimate load closes its connections, whose slots
			// its last wave would take.
			fl.run(ctx, end.Add(-min(100*time.Millisecond, phase/10)))
		case <-ctx.Done():
		}
	})
	r := l.run(ctx)
	wg.Wait()
	res := &ConnCapResult{
		Target:       cfg.Target.label(),
		Cap:          cfg.Cap,
		Flood:        fl.attempts.Load(),
		Admitted:     fl.admitted.Load(),
		ClosedUnread: fl.closed.Load(),
		FloodErrors:  fl.errors,
		Baseline:     summarize(r.Latency),
		UnderFlood:   summarize(r.Second.Latency),
		Errors:       r.Errors,
	}
	res.Expected = res.Flood - res.Admitted
	res.Errors.merge(r.Second.Errors)
	return res, ctx.Err()
}

// maxFloodAttempts bounds the connections one flood opens (ephemeral ports are finite).
const maxFloodAttempts = 20000

// flood holds up to slots connections open, each admitted by an answered echo call, and
// retries the others in waves.
type flood struct {
	ep      *endpoint
	slots   int
	timeout time.Duration

	attempts, admitted, closed atomic.Int64
	mu                         sync.Mutex
	errors                     Errors
}

func (f *flood) run(ctx context.Context, end time.Time) {
	held := make([]*conn, f.slots)
	defer func() {
		for _, c := range held {
			if c != nil {
				c.close()
			}
		}
	}()
	ctx, cancel := context.WithDeadline(ctx, end)
	defer cancel()
	for ctx.Err() == nil && f.attempts.Load() < maxFloodAttempts {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range min(32, f.slots) {
			wg.Go(func() {
				for {
					i := next.Add(1) - 1
					if i >= int64(f.slots) || ctx.Err() != nil {
						return
					}
					if held[i] == nil {
						held[i] = f.try(ctx)
					}
				}
			})
		}
		wg.Wait()
		select { // the next wave
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// try opens one flood connection and sends one call; it returns the connection when the
// call was answered.
func (f *flood) try(ctx context.Context) *conn {
	// An attempt cut by the end of the phase is not counted (the context's own timer may
	// not have fired yet when the dial's deadline, the same instant, did).
	over := func() bool {
		dl, _ := ctx.Deadline()
		return ctx.Err() != nil || !time.Now().Before(dl)
	}
	c, err := dialConn(ctx, f.ep, f.timeout)
	if err != nil {
		if !over() {
			f.attempts.Add(1)
			f.fail(kindOf(err, false))
		}
		return nil
	}
	kind, fatal := c.call(time.Now(), 1)
	if kind == KindTimeout && over() {
		c.close()
		return nil
	}
	f.attempts.Add(1)
	switch {
	case kind == "" && !fatal:
		f.admitted.Add(1)
		return c
	case kind == KindClosed:
		f.closed.Add(1)
	default:
		f.fail(kind)
	}
	c.close()
	return nil
}

func (f *flood) fail(kind string) {
	f.mu.Lock()
	f.errors.add(kind, 1)
	f.mu.Unlock()
}

// Report implements Reporter.
func (r *ConnCapResult) Report() Report {
	rep := Report{Scenario: "conncap", Target: r.Target, Errors: r.Errors, Latency: &r.UnderFlood}
	rep.add("cap", float64(r.Cap), UnitCount)
	rep.add("flood conns", float64(r.Flood), UnitCount)
	rep.add("admitted", float64(r.Admitted), UnitCount)
	rep.add("excess closed unread", float64(r.ClosedUnread), UnitCount)
	rep.add("excess", float64(r.Expected), UnitCount)
	rep.addDur("legit p99 baseline", r.Baseline.P99)
	rep.addDur("legit p99 under flood", r.UnderFlood.P99)
	if r.ClosedUnread < r.Expected {
		rep.Notes = append(rep.Notes, fmt.Sprintf("FLOOD: %d excess connections were not closed unread (%s)", r.Expected-r.ClosedUnread, r.FloodErrors))
	}
	if r.Errors.Total() > 0 {
		rep.Notes = append(rep.Notes, errorNote(r.Errors, r.Baseline.Count+r.UnderFlood.Count))
	}
	return rep
}
