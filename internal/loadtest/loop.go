package loadtest

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Progress is a live reading of a running scenario, for a progress line.
type Progress struct {
	Scenario string
	Target   string
	// Phase says what the scenario is doing ("load", "flood", "drain", "streams"...).
	Phase    string
	Elapsed  time.Duration
	Duration time.Duration
	// Done and Errors count requests (or streams) so far; Rate is Done per second.
	Done, Errors int64
	Rate         float64
}

// ProgressFunc receives Progress readings, about four a second, from one goroutine.
type ProgressFunc func(Progress)

// load describes one run of echo calls: a closed loop (Rate 0: Conns connections as fast as
// they go) or an open loop (requests sent at Rate per second on Conns connections, each
// latency measured from the request's intended send time).
type load struct {
	ep       *endpoint
	conns    int
	duration time.Duration
	warmup   time.Duration // requests intended before it are not measured
	rate     float64
	timeout  time.Duration
	// progress, if set, is called periodically with the counters of this run.
	progress func(elapsed time.Duration, done, errs int64)
	// split, if set, divides the measured window in two phases: requests due from split on
	// are measured apart (conncap and slowloris compare a phase under attack with one
	// without).
	split time.Time
	// epoll lets the epoll engine drive a closed loop where it can (epoll_linux.go); else
	// each connection has a goroutine.
	epoll bool
	// engine names what drove the run: "epoll" or "goroutines".
	engine string
}

// loadResult is what a load measured after its warmup.
type loadResult struct {
	Requests int64 // checked successful responses
	// Answered counts checked successful responses over the whole run, warmup included: the
	// denominator of a server's counters read before and after it.
	Answered int64
	Errors   Errors
	Elapsed  time.Duration // measured window
	// Latency is from the intended send time (open loop) or the send (closed loop);
	// Service is always from the send; Lag is send minus intended time (open loop).
	Latency, Service, Lag *hdrhistogram.Histogram
	// Backlog counts requests due in the window that were never sent because every
	// connection was busy (open loop).
	Backlog int64
	// PacerLag is how late the pacer itself handed out the measured requests (open loop):
	// the generator's own delay, whatever the connections were doing.
	PacerLag *hdrhistogram.Histogram
	// Second is the phase after load.split, when set; the fields above cover the first.
	Second *loadResult
}

// worker is one connection's goroutine state; counters are read live by the progress ticker.
type worker struct {
	done, errs atomic.Int64
	_          [48]byte // keep workers' counters on separate cache lines

	latency, service, lag *hdrhistogram.Histogram
	errors                Errors
	requests              int64
	answered              int64   // checked successes, warmup included
	second                *worker // the second phase's measurements, when split
}

func newWorker(split bool) *worker {
	w := &worker{latency: newHist(), service: newHist(), lag: newHist()}
	if split {
		w.second = &worker{latency: newHist(), service: newHist(), lag: newHist()}
	}
	return w
}

// phase returns the worker that measures a request due at t.
func (w *worker) phase(l *load, t time.Time) *worker {
	if w.second != nil && !t.Before(l.split) {
		return w.second
	}
	return w
}

// run drives l until its duration ends or ctx is cancelled.
func (l *load) run(ctx context.Context) *loadResult {
	if l.timeout <= 0 {
		l.timeout = DefaultTimeout
	}
	start := time.Now()
	measureFrom := start.Add(l.warmup)
	end := start.Add(l.warmup + l.duration)
	parent := ctx
	ctx, cancel := context.WithDeadline(parent, end)
	defer cancel()
	// Open-loop workers may still send, for a short grace, requests that fell due before the
	// end; what is left after it is backlog.
	wctx, wcancel := context.WithDeadline(parent, end.Add(openGrace))
	defer wcancel()

	workers := make([]*worker, l.conns)
	for i := range workers {
		workers[i] = newWorker(!l.split.IsZero())
	}
	var tokens chan int64
	var backlog atomic.Int64
	var wg sync.WaitGroup
	pacerLag := newHist()
	if l.rate > 0 {
		tokens = make(chan int64, 1<<16)
		wg.Go(func() { backlog.Add(l.pace(ctx, start, measureFrom, end, tokens, pacerLag)) })
	}
	stopTicker := l.tick(start, workers)
	l.engine = "goroutines"
	// The epoll engine stops sending at end itself and waits for the replies in flight, as
	// the closed workers do: it runs under parent, not the window's deadline.
	if tokens == nil && l.epollAvailable(ctx, workers[0]) && l.runEpoll(parent, workers, measureFrom, end) {
		l.engine = "epoll"
	} else {
		for i, w := range workers {
			wg.Go(func() {
				if tokens != nil {
					l.openWorker(wctx, w, measureFrom, tokens, &backlog)
				} else {
					l.closedWorker(ctx, w, int64(i), measureFrom, end)
				}
			})
		}
	}
	wg.Wait()
	stopTicker()

	res := &loadResult{Latency: newHist(), Service: newHist(), Lag: newHist(), Elapsed: l.duration}
	if now := time.Now(); now.Before(end) { // cancelled early
		res.Elapsed = max(0, now.Sub(measureFrom))
	}
	if !l.split.IsZero() {
		res.Second = &loadResult{Latency: newHist(), Service: newHist(), Lag: newHist(), Elapsed: end.Sub(l.split)}
		res.Elapsed = l.split.Sub(measureFrom)
	}
	for _, w := range workers {
		res.merge(w)
		res.Answered += w.answered
		if w.second != nil {
			res.Second.merge(w.second)
		}
	}
	res.Backlog = backlog.Load()
	res.PacerLag = pacerLag
	return res
}

func (r *loadResult) merge(w *worker) {
	r.Latency.Merge(w.latency)
	r.Service.Merge(w.service)
	r.Lag.Merge(w.lag)
	r.Errors.merge(w.errors)
	r.Requests += w.requests
}

// openGrace is how long after the window open-loop workers still send requests that fell
// due in it.
const openGrace = 250 * time.Millisecond

// tick reports progress until the returned stop is called.
func (l *load) tick(start time.Time, workers []*worker) (stop func()) {
	if l.progress == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				var d, e int64
				for _, w := range workers {
					d += w.done.Load()
					e += w.errs.Load()
					if w.second != nil {
						d += w.second.done.Load()
						e += w.second.errs.Load()
					}
				}
				l.progress(time.Since(start), d, e)
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// ids: worker i sends i, i+n, i+2n... so ids are unique across a run.
func (l *load) closedWorker(ctx context.Context, w *worker, i int64, measureFrom, end time.Time) {
	var c *conn
	n := int64(l.conns)
	for id := i; ; id += n {
		if ctx.Err() != nil {
			break
		}
		if c == nil {
			c = l.dial(ctx, w, measureFrom)
			if c == nil {
				continue
			}
		}
		sent := time.Now()
		if sent.After(end) {
			break
		}
		kind, fatal := c.call(sent, id)
		got := time.Now()
		if kind == "" {
			w.answered++
		}
		if !sent.Before(measureFrom) && !got.After(end.Add(l.timeout)) {
			w.phase(l, sent).result(kind, got.Sub(sent), got.Sub(sent), -1)
		}
		if fatal {
			c.close()
			c = nil
		}
	}
	if c != nil {
		c.close()
	}
}

// dial opens a connection, counting a failure (and pausing briefly, so a dead target does
// not spin) when it cannot.
func (l *load) dial(ctx context.Context, w *worker, measureFrom time.Time) *conn {
	c, err := dialConn(ctx, l.ep, l.timeout)
	if err == nil {
		return c
	}
	if ctx.Err() != nil {
		return nil
	}
	kind := KindDial
	if k := kindOf(err, false); k == KindRefused || k == KindTimeout {
		kind = k
	}
	if !time.Now().Before(measureFrom) {
		w.errors.add(kind, 1)
		w.errs.Add(1)
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Millisecond):
	}
	return nil
}

// result counts one finished request; lag < 0 means none (closed loop).
func (w *worker) result(kind string, latency, service, lag time.Duration) {
	if kind != "" {
		w.errors.add(kind, 1)
		w.errs.Add(1)
		return
	}
	w.requests++
	w.done.Add(1)
	record(w.latency, latency)
	record(w.service, service)
	if lag >= 0 {
		record(w.lag, lag)
	}
}

// pace sends the index of each request on tokens at its intended time, start + i/rate: it
// hands out every request due within sleepEarly, then sleeps precisely (see sleeper) until the
// next one is that close. A token carries its intended time, so a token that waits in the
// channel (every connection busy) is measured from when it was due. It returns the number of
// measured requests that fell due but were never handed out.
//
// late records, for each measured request (due from measureFrom on), how late the pacer
// handed it out: a pacer that does not get the CPU in time is the generator's delay, not
// the endpoint's (the channel is large enough never to block it on busy connections).
func (l *load) pace(ctx context.Context, start, measureFrom, end time.Time, tokens chan<- int64, late *hdrhistogram.Histogram) (unsent int64) {
	defer close(tokens)
	interval := float64(time.Second) / l.rate
	total := int64(math.Ceil(l.rate * (l.warmup + l.duration).Seconds()))
	firstMeasured := int64(math.Ceil(l.rate * l.warmup.Seconds()))
	i := int64(0)
	defer func() {
		if rest := total - max(i, firstMeasured); rest > 0 {
			unsent = rest
		}
	}()
	sl, err := newSleeper()
	if err != nil {
		sl = nil
	} else {
		defer sl.close()
	}
	for ; ; i++ {
		due := start.Add(time.Duration(float64(i) * interval))
		if !due.Before(end) {
			i = total // every request was handed out
			return 0
		}
		if wait := time.Until(due) - sleepEarly; wait > 0 {
			if ctx.Err() != nil {
				return
			}
			if sl != nil {
				sl.sleep(wait)
			} else {
				time.Sleep(wait)
			}
		}
		if !due.Before(measureFrom) {
			record(late, max(0, time.Since(due)))
		}
		select {
		case tokens <- i:
		case <-ctx.Done():
			return
		}
	}
}

func (l *load) openWorker(ctx context.Context, w *worker, measureFrom time.Time, tokens <-chan int64, backlog *atomic.Int64) {
	var c *conn
	interval := float64(time.Second) / l.rate
	start := measureFrom.Add(-l.warmup)
	defer func() {
		if c != nil {
			c.close()
		}
	}()
	// Every connection opens before the first request is due, so the load holds all of them
	// from the start (conncap counts them toward the cap).
	c = l.dial(ctx, w, measureFrom)
	for tok := range tokens {
		due := start.Add(time.Duration(float64(tok) * interval))
		if ctx.Err() != nil { // the window closed: what is left was due but never sent
			if !due.Before(measureFrom) {
				backlog.Add(1)
			}
			continue
		}
		if c == nil {
			if c = l.dial(ctx, w, measureFrom); c == nil {
				if !due.Before(measureFrom) {
					backlog.Add(1)
				}
				continue
			}
		}
		sent := time.Now()
		kind, fatal := c.call(sent, tok)
		got := time.Now()
		if kind == "" {
			w.answered++
		}
		if !due.Before(measureFrom) {
			// Sent early (within sleepEarly): measured from the send; sent late: from when it
			// was due, the wait included. Either way from the earlier of the two.
			from := due
			if sent.Before(due) {
				from = sent
			}
			w.phase(l, due).result(kind, got.Sub(from), got.Sub(sent), max(sent.Sub(due), 0))
		}
		if fatal {
			c.close()
			c = nil
		}
	}
}
