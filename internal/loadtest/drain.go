package loadtest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// DrainTarget is one endpoint for one drain run.
type DrainTarget struct {
	Target Target
	// Shutdown starts the endpoint's drain and returns when it finished (an in-process
	// Server.Shutdown, or a signal to a process and a wait for its exit).
	Shutdown func(ctx context.Context) error
	// Admitted, if set, returns how many echo calls reached the server's core so far: with
	// it, lost requests are counted exactly (admitted minus answered) instead of from the
	// client's view alone.
	Admitted func() int64
}

// DrainConfig configures Drain: closed-loop echo load and open listen streams, then a
// shutdown in the middle of the load.
type DrainConfig struct {
	// Start returns a fresh endpoint for each run.
	Start func(ctx context.Context, run int) (*DrainTarget, error)
	// Runs is the number of consecutive runs (1 if zero).
	Runs int
	// Connections carry the load (16 if zero); Streams listen streams are open when the
	// drain starts (16 if zero; negative for none).
	Connections, Streams int
	// Before is how long the load runs before the shutdown (1 s if zero).
	Before time.Duration
	// DrainTimeout is the endpoint's drain timeout, reported beside the time taken.
	DrainTimeout time.Duration
	// Timeout bounds one request (DefaultTimeout if zero).
	Timeout  time.Duration
	Progress ProgressFunc
}

// DrainRun is the outcome of one run.
type DrainRun struct {
	// Completed counts checked 200 replies; Refused the 503 "shutting down" answers to
	// requests that arrived during the drain (not admitted); ClosedUnread the requests whose
	// connection closed before any response byte (not admitted, by the server's account).
	Completed, Refused, ClosedUnread int64
	// Admitted is the server's count of echo calls that reached its core (-1 if unknown).
	Admitted int64
	// Lost counts admitted requests that got no checked 200: admitted minus completed when
	// the server's count is known, otherwise the client-side failures after a request was
	// sent (timeouts, partial or malformed responses).
	Lost int64
	// NewConnRefused counts connections refused after the drain began.
	NewConnRefused int64
	// ShutdownTime is how long the drain took; ShutdownErr its error, if any.
	ShutdownTime time.Duration
	ShutdownErr  string `json:",omitempty"`
	// Streams were open at the drain; StreamsCompleted ended with their completion response.
	Streams, StreamsCompleted int64
	// Errors are the failures not accounted above, by kind.
	Errors Errors
}

// DrainResult is the outcome of Drain.
type DrainResult struct {
	Target       string        `json:"target"`
	DrainTimeout time.Duration `json:"drain_timeout_ns"`
	Runs         []DrainRun    `json:"runs"`
}

// Drain runs the drain scenario cfg.Runs times.
func Drain(ctx context.Context, cfg DrainConfig) (*DrainResult, error) {
	if cfg.Start == nil {
		return nil, errors.New("loadtest: drain needs a Start function")
	}
	res := &DrainResult{DrainTimeout: cfg.DrainTimeout}
	runs := orDefault(cfg.Runs, 1)
	for i := range runs {
		if ctx.Err() != nil {
			break
		}
		dt, err := cfg.Start(ctx, i)
		if err != nil {
			return res, err
		}
		res.Target = dt.Target.label()
		run, err := drainOnce(ctx, dt, &cfg)
		if err != nil {
			return res, err
		}
		res.Runs = append(res.Runs, *run)
		if cfg.Progress != nil {
			cfg.Progress(Progress{Scenario: "drain", Target: res.Target, Phase: "run " + strconv.Itoa(i+1) + "/" + strconv.Itoa(runs), Done: int64(i + 1), Errors: run.Lost})
		}
	}
	return res, ctx.Err()
}

func drainOnce(ctx context.Context, dt *DrainTarget, cfg *DrainConfig) (*DrainRun, error) {
	ep, err := dt.Target.parse()
	if err != nil {
		return nil, err
	}
	timeout := orDefault(cfg.Timeout, DefaultTimeout)
	before := orDefault(cfg.Before, time.Second)
	nconns := orDefault(cfg.Connections, 16)
	nstreams := cfg.Streams
	if nstreams == 0 {
		nstreams = 16
	}
	run := &DrainRun{Admitted: -1}
	// Every read ends by this deadline, whatever the server does.
	deadline := time.Now().Add(before + time.Minute)
	var draining atomic.Bool
	var mu sync.Mutex
	account := func(f func()) { mu.Lock(); f(); mu.Unlock() }

	// Listen streams, opened before the load.
	set := &streamSet{intervals: newHist()}
	streams := openStreams(ctx, ep, max(nstreams, 0), 16, deadline, set, func(int64) {})
	run.Streams = int64(len(streams))
	var completed atomic.Int64
	var wg sync.WaitGroup
	for _, s := range streams {
		wg.Go(func() {
			defer s.close()
			for {
				ev, err := s.next()
				if err != nil {
					return
				}
				if !ev.comment && isCompletion(ev.data, s.id) {
					completed.Add(1)
				}
			}
		})
	}

	// The load: each worker keeps its connection busy until the drain refuses it.
	loadCtx, stopLoad := context.WithDeadline(ctx, deadline)
	defer stopLoad()
	var workers sync.WaitGroup
	for w := range nconns {
		workers.Go(func() { drainWorker(loadCtx, ep, int64(w), int64(nconns), timeout, &draining, run, account) })
	}
	select {
	case <-time.After(before):
	case <-ctx.Done():
	}
	draining.Store(true)
	start := time.Now()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), max(cfg.DrainTimeout, 5*time.Second)+30*time.Second)
	err = dt.Shutdown(sctx)
	cancel()
	run.ShutdownTime = time.Since(start)
	if err != nil {
		run.ShutdownErr = err.Error()
	}
	workers.Wait()
	// Streams the server completed have ended; any other is cut after a grace period.
	streamsDone := make(chan struct{})
	go func() { wg.Wait(); close(streamsDone) }()
	select {
	case <-streamsDone:
	case <-time.After(2 * time.Second):
		for _, s := range streams {
			_ = s.nc.Close()
		}
		<-streamsDone
	}
	run.StreamsCompleted = completed.Load()
	run.Errors.merge(set.errors)
	if dt.Admitted != nil {
		run.Admitted = dt.Admitted()
		run.Lost = max(0, run.Admitted-run.Completed)
	}
	return run, nil
}

// drainWorker sends echo calls on one connection, redialling after a close, until a dial is
// refused once the drain began (or the deadline).
func drainWorker(ctx context.Context, ep *endpoint, i, n int64, timeout time.Duration, draining *atomic.Bool, run *DrainRun, account func(func())) {
	var c *conn
	defer func() {
		if c != nil {
			c.close()
		}
	}()
	for id := i; ctx.Err() == nil; id += n {
		if c == nil {
			var err error
			if c, err = dialConn(ctx, ep, timeout); err != nil {
				kind := kindOf(err, false)
				if draining.Load() {
					account(func() { run.NewConnRefused++ })
					return
				}
				account(func() { run.Errors.add(kind, 1) })
				return
			}
		}
		during := draining.Load()
		kind, fatal := c.call(time.Now(), id)
		account(func() {
			switch {
			case kind == "":
				run.Completed++
			case kind == KindStatusPrefix+"503" && (during || draining.Load()):
				run.Refused++
			case kind == KindClosed:
				run.ClosedUnread++
			default:
				run.Errors.add(kind, 1)
				if run.Admitted < 0 {
					run.Lost++ // provisional: replaced by the server's count when known
				}
			}
		})
		if fatal {
			c.close()
			c = nil
		}
	}
}

// Report implements Reporter.
func (r *DrainResult) Report() Report {
	rep := Report{Scenario: "drain", Target: r.Target}
	var lost, completed, refused, closed, conns, streams, done int64
	var worst time.Duration
	exact := true
	for _, run := range r.Runs {
		lost += run.Lost
		completed += run.Completed
		refused += run.Refused
		closed += run.ClosedUnread
		conns += run.NewConnRefused
		streams += run.Streams
		done += run.StreamsCompleted
		worst = max(worst, run.ShutdownTime)
		rep.Errors.merge(run.Errors)
		if run.Admitted < 0 {
			exact = false
		}
		if run.ShutdownErr != "" {
			rep.Notes = append(rep.Notes, "shutdown: "+run.ShutdownErr)
		}
	}
	rep.add("runs", float64(len(r.Runs)), UnitCount)
	rep.add("admitted lost", float64(lost), UnitCount)
	rep.add("answered", float64(completed), UnitCount)
	rep.add("refused 503", float64(refused), UnitCount)
	rep.add("closed unread", float64(closed), UnitCount)
	rep.add("new conns refused", float64(conns), UnitCount)
	rep.addDur("drain time (max)", worst)
	if r.DrainTimeout > 0 {
		rep.addDur("drain timeout", r.DrainTimeout)
	}
	rep.add("streams completed", float64(done), UnitCount)
	rep.add("streams", float64(streams), UnitCount)
	if lost > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("LOST: %d admitted requests got no response", lost))
	}
	if done < streams {
		rep.Notes = append(rep.Notes, fmt.Sprintf("STREAMS: %d of %d listen streams ended without their completion response", streams-done, streams))
	}
	if !exact {
		rep.Notes = append(rep.Notes, "lost counted from the client's view (the server's admitted count is unknown)")
	}
	if rep.Errors.Total() > 0 {
		rep.Notes = append(rep.Notes, "ERRORS: "+rep.Errors.String())
	}
	return rep
}
