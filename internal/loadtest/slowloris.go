package loadtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of Slowloris.
const (
	DefaultSlowClients  = 64
	DefaultTrickleEvery = 100 * time.Millisecond
)

// SlowlorisConfig configures Slowloris: while a legitimate load runs, Clients connections
// trickle their requests one byte at a time, half of them in the head and half in the body
// (a complete head announcing a body that never finishes).
type SlowlorisConfig struct {
	Target Target
	// Clients is the number of slow connections (DefaultSlowClients if zero).
	Clients int
	// Every is the pause between two trickled bytes (DefaultTrickleEvery if zero).
	Every time.Duration
	// Connections and Rate are the legitimate load (DefaultLegitConnections and
	// DefaultLegitRate if zero).
	Connections int
	Rate        float64
	// Phase is the length of each phase: without, then with the slow clients
	// (DefaultPhase); it must exceed the endpoint's head and body timeouts to see the cuts.
	Phase   time.Duration
	Timeout time.Duration
	// Progress, if set, receives live readings.
	Progress ProgressFunc
}

// SlowlorisResult is the outcome of Slowloris.
type SlowlorisResult struct {
	Target  string `json:"target"`
	Clients int    `json:"clients"`
	// Cut counts the slow connections the endpoint closed (or answered with an error);
	// CutAfter is the time from their first byte until then; Uncut are still open at the end.
	Cut      int64       `json:"cut"`
	Uncut    int64       `json:"uncut"`
	CutAfter Percentiles `json:"cut_after"`
	// Baseline is the legitimate latency without slow clients, UnderAttack with them.
	Baseline, UnderAttack Percentiles
	// SlowErrors are slow connections that could not be opened.
	SlowErrors Errors `json:"slow_errors"`
	Errors     Errors `json:"errors"`
}

// Slowloris runs the slow-client scenario.
func Slowloris(ctx context.Context, cfg SlowlorisConfig) (*SlowlorisResult, error) {
	ep, err := cfg.Target.parse()
	if err != nil {
		return nil, err
	}
	l, end := twoPhaseLoad(ep, cfg.Connections, cfg.Rate, orDefault(cfg.Phase, DefaultPhase), cfg.Timeout)
	l.progress = progressOf(cfg.Progress, "slowloris", cfg.Target.label(), "legitimate load, then slow clients", l.warmup+l.duration)
	clients := orDefault(cfg.Clients, DefaultSlowClients)
	every := orDefault(cfg.Every, DefaultTrickleEvery)

	res := &SlowlorisResult{Target: cfg.Target.label(), Clients: clients}
	cut := newHist()
	var mu sync.Mutex
	var wg sync.WaitGroup
	var uncut atomic.Int64
	for i := range clients {
		wg.Go(func() {
			select {
			case <-time.After(time.Until(l.split)):
			case <-ctx.Done():
				return
			}
			d, kind := slowClient(ctx, ep, i%2 == 1, every, end)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case kind != "":
				res.SlowErrors.add(kind, 1)
			case d < 0:
				uncut.Add(1)
			default:
				record(cut, d)
			}
		})
	}
	r := l.run(ctx)
	wg.Wait()
	res.Cut = cut.TotalCount()
	res.Uncut = uncut.Load()
	res.CutAfter = summarize(cut)
	res.Baseline = summarize(r.Latency)
	res.UnderAttack = summarize(r.Second.Latency)
	res.Errors = r.Errors
	res.Errors.merge(r.Second.Errors)
	return res, ctx.Err()
}

// slowClient trickles one request until the endpoint cuts it (returning the time from the
// first byte) or end (returning -1); kind is set when the connection could not be opened.
func slowClient(ctx context.Context, ep *endpoint, inBody bool, every time.Duration, end time.Time) (time.Duration, string) {
	nc, err := ep.dial(ctx)
	if err != nil {
		return 0, kindOf(err, false)
	}
	defer nc.Close()
	_ = nc.SetDeadline(end.Add(time.Second))
	body := ep.appendCall(nil, 1)
	head := "POST " + ep.path + " HTTP/1.1\r\nHost: " + ep.host + "\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\n" + HeaderProtocolVersion + ": " + ep.t.Dialect.String() + "\r\n" +
		HeaderMethod + ": tools/call\r\n" + HeaderName + ": " + ep.t.Tool + "\r\n" +
		"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"
	payload := []byte(head)
	first := 0
	if inBody { // the head goes at once; the body trickles
		first = len(head)
		payload = append(payload, body...)
	}
	start := time.Now()
	// A reader notices the cut: a close, a reset, or an error response.
	cutAt := make(chan time.Time, 1)
	go func() {
		var b [512]byte
		_, err := nc.Read(b[:])
		if err == nil || errors.Is(err, io.EOF) || kindOf(err, false) != KindTimeout {
			cutAt <- time.Now()
			return
		}
		cutAt <- time.Time{}
	}()
	if first > 0 {
		if _, err := nc.Write(payload[:first]); err != nil {
			return time.Since(start), ""
		}
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for i := first; ; i++ {
		if i < len(payload)-1 { // never the last byte: the request must stay incomplete
			if _, err := nc.Write(payload[i : i+1]); err != nil {
				break
			}
		}
		select {
		case t := <-cutAt:
			if t.IsZero() {
				return -1, ""
			}
			return t.Sub(start), ""
		case <-tick.C:
			if time.Now().After(end) {
				_ = nc.Close()
				if t := <-cutAt; !t.IsZero() && t.Before(end) {
					return t.Sub(start), ""
				}
				return -1, ""
			}
		case <-ctx.Done():
			_ = nc.Close()
			<-cutAt
			return -1, ""
		}
	}
	_ = nc.Close()
	if t := <-cutAt; !t.IsZero() {
		return t.Sub(start), ""
	}
	return time.Since(start), ""
}

// Report implements Reporter.
func (r *SlowlorisResult) Report() Report {
	rep := Report{Scenario: "slowloris", Target: r.Target, Errors: r.Errors, Latency: &r.UnderAttack}
	rep.add("slow clients", float64(r.Clients), UnitCount)
	rep.add("cut", float64(r.Cut), UnitCount)
	rep.add("uncut", float64(r.Uncut), UnitCount)
	rep.addDur("cut after p50", r.CutAfter.P50)
	rep.addDur("cut after max", r.CutAfter.Max)
	rep.addDur("legit p99 baseline", r.Baseline.P99)
	rep.addDur("legit p99 under attack", r.UnderAttack.P99)
	if r.Uncut > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("UNCUT: %d slow clients were still connected at the end of the phase", r.Uncut))
	}
	if r.SlowErrors.Total() > 0 {
		rep.Notes = append(rep.Notes, "slow clients not opened: "+r.SlowErrors.String())
	}
	if r.Errors.Total() > 0 {
		rep.Notes = append(rep.Notes, errorNote(r.Errors, r.Baseline.Count+r.UnderAttack.Count))
	}
	return rep
}
