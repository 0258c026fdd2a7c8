package loadtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Defaults and bounds of Streams.
const (
	DefaultStreams      = 1000
	MaxStreams          = 10000
	DefaultFanouts      = 3
	DefaultFanoutWait   = 5 * time.Second
	DefaultOpenParallel = 64
)

// StreamsConfig configures Streams (the sse-keepalive scenario): N subscriptions/listen
// streams held open; it measures the keepalive cadence and jitter, how long one
// tools/list_changed takes to reach every stream, and the server's memory per stream.
type StreamsConfig struct {
	Target Target
	// Streams is the number of listen streams (DefaultStreams if zero, at most MaxStreams).
	Streams int
	// Duration is the window in which keepalive comments are observed, after every stream
	// is open (DefaultDuration if zero). It should span several keepalive intervals.
	Duration time.Duration
	// Fanouts is the number of list_changed rounds (DefaultFanouts if zero); each waits at
	// most FanoutWait (DefaultFanoutWait if zero) for every stream.
	Fanouts    int
	FanoutWait time.Duration
	// Trigger makes the server publish one tools/list_changed. If nil, it calls the demo
	// catalog's toggle tool on the target.
	Trigger func(ctx context.Context) error
	// Memory reads the server's memory in bytes. If nil and Target.PID is set, it reads the
	// process's resident set (VmRSS); with neither, memory is not reported.
	Memory func() (uint64, error)
	// MemorySource says what Memory reads, for the report.
	MemorySource string
	// OpenParallel bounds the streams being opened at once (DefaultOpenParallel if zero).
	OpenParallel int
	// Progress, if set, receives live readings.
	Progress ProgressFunc
	// Floor, if set, starts the write floor after the first round: as many streams on it,
	// sent the bytes of the server's list_changed as recorded from one of its streams, each
	// floor round after a round of the server's; or, when the file descriptors do not hold
	// both sets of streams, all its rounds after the server's, once those streams are closed.
	// Not over TLS.
	Floor FloorStarter
}

// StreamsResult is the outcome of Streams.
type StreamsResult struct {
	Target   string        `json:"target"`
	Streams  int           `json:"streams"`
	Opened   int64         `json:"opened"`
	OpenTime time.Duration `json:"open_time_ns"`
	// KeepAlives counts the keepalive comments seen in the window; Interval is the time
	// between consecutive ones on a stream, Jitter its spread (p99 minus p1).
	KeepAlives int64         `json:"keepalives"`
	Interval   Percentiles   `json:"interval"`
	Jitter     time.Duration `json:"jitter_ns"`
	// Fanout is, per round, the time from the trigger until the last stream had the event;
	// FanoutMedian the median stream's time in the slowest round; Missed the streams that
	// did not get a round's event within FanoutWait.
	Fanout       []time.Duration `json:"fanout_ns"`
	FanoutMedian time.Duration   `json:"fanout_median_ns"`
	Missed       int64           `json:"missed"`
	// FanoutMedians is the median stream's time of each round.
	FanoutMedians []time.Duration `json:"fanout_medians_ns"`
	// Floor is the write floor's rounds, alternated with the server's (nil without
	// StreamsConfig.Floor).
	Floor *FloorResult `json:"floor,omitempty"`
	// Memory before and after opening the streams, and the difference per stream (zero when
	// not measured).
	MemoryBefore uint64  `json:"memory_before_bytes,omitempty"`
	MemoryAfter  uint64  `json:"memory_after_bytes,omitempty"`
	PerStream    float64 `json:"memory_per_stream_bytes,omitempty"`
	MemorySource string  `json:"memory_source,omitempty"`
	MemoryNote   string  `json:"memory_note,omitempty"`
	// Ended counts streams the server ended before the client closed them.
	Ended  int64  `json:"ended"`
	Errors Errors `json:"errors"`
}

// checkStreamFDs is checkFDs, replaced by a test that needs the floor's rounds in sequence.
var checkStreamFDs = checkFDs

// streamSet is the shared state of the stream readers.
type streamSet struct {
	mu        sync.Mutex
	intervals *hdrhistogram.Histogram
	errors    Errors
	arrivals  []time.Duration // of the current round

	keepalives, ended atomic.Int64
	round             atomic.Int64
	roundStart        atomic.Int64 // unix nanoseconds
	want              atomic.Int64 // arrivals that complete the round
	roundDone         chan struct{}
	observing         atomic.Bool
}

// Streams opens the streams and measures them.
func Streams(ctx context.Context, cfg StreamsConfig) (*StreamsResult, error) {
	ep, err := cfg.Target.parse()
	if err != nil {
		return nil, err
	}
	n := orDefault(cfg.Streams, DefaultStreams)
	if n > MaxStreams {
		return nil, fmt.Errorf("loadtest: %d streams is over the maximum of %d", n, MaxStreams)
	}
	window := orDefault(cfg.Duration, DefaultDuration)
	fanouts := orDefault(cfg.Fanouts, DefaultFanouts)
	wait := orDefault(cfg.FanoutWait, DefaultFanoutWait)
	floorOn := cfg.Floor != nil && ep.tls == nil
	// The floor's rounds alternate with the server's when both sets of streams fit in the
	// file descriptors, and follow them, on streams opened once the server's are closed,
	// when only one set does.
	var sequenceNote string
	if floorOn {
		if err := checkStreamFDs(2*n, "listen streams (half of them on the write floor)"); err != nil {
			sequenceNote = "floor rounds after the server's, its streams opened once the server's closed: " + err.Error()
		}
	}
	if err := checkFDs(n, "listen streams"); err != nil {
		return nil, err
	}
	trigger := cfg.Trigger
	if trigger == nil {
		trigger = func(ctx context.Context) error { return callOnce(ctx, ep, "toggle", "{}", DefaultTimeout) }
	}
	memory := cfg.Memory
	if memory == nil && cfg.Target.PID > 0 {
		pid := cfg.Target.PID
		memory = func() (uint64, error) { return ProcessRSS(pid) }
	}
	res := &StreamsResult{Target: cfg.Target.label(), Streams: n, MemorySource: cfg.MemorySource}
	if memory != nil && res.MemorySource == "" {
		res.MemorySource = "VmRSS"
	}
	if memory != nil {
		if res.MemoryBefore, err = memory(); err != nil {
			res.MemoryNote = err.Error()
			memory = nil
		}
	}

	// Every read is bounded: opening, the window, the rounds, and a margin.
	deadline := time.Now().Add(time.Minute + window + time.Duration(fanouts)*wait)
	if floorOn {
		deadline = deadline.Add(time.Minute + time.Duration(fanouts)*wait)
	}
	set := &streamSet{intervals: newHist()}
	report := func(phase string, done int64, start time.Time, total time.Duration) {
		if cfg.Progress != nil {
			cfg.Progress(Progress{Scenario: "sse-keepalive", Target: res.Target, Phase: phase, Elapsed: time.Since(start), Duration: total, Done: done, Errors: set.errorCount()})
		}
	}
	start := time.Now()
	var rec *wireRecorder // the last stream, whose id is the longest: the floor's bytes
	if floorOn {
		rec = &wireRecorder{}
	}
	streams := openRecordedStreams(ctx, ep, n, orDefault(cfg.OpenParallel, DefaultOpenParallel), deadline, set, rec, func(done int64) {
		report("opening", done, start, 0)
	})
	res.OpenTime = time.Since(start)
	res.Opened = int64(len(streams))

	var wg sync.WaitGroup
	for _, s := range streams {
		wg.Go(func() { set.read(s) })
	}
	closeStreams := sync.OnceFunc(func() {
		set.round.Store(-1) // the client is closing: ends from here on are ours
		for _, s := range streams {
			s.close()
		}
		wg.Wait()
	})
	defer closeStreams()
	if memory != nil {
		if after, err := memory(); err == nil {
			res.MemoryAfter = after
			if res.Opened > 0 && after > res.MemoryBefore {
				res.PerStream = float64(after-res.MemoryBefore) / float64(res.Opened)
			}
		} else {
			res.MemoryNote = err.Error()
		}
	}

	// Keepalive window.
	set.observing.Store(true)
	wstart := time.Now()
	tick := time.NewTicker(250 * time.Millisecond)
	for time.Since(wstart) < window && ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-tick.C:
			report("keepalive", set.keepalives.Load(), wstart, window)
		}
	}
	tick.Stop()
	set.observing.Store(false)

	// Fan-out rounds, each followed by one of the floor's once it runs.
	var slowestMedian time.Duration
	var floor *floorRun
	defer func() {
		if floor != nil {
			floor.close()
		}
	}()
	switch {
	case cfg.Floor != nil && !floorOn:
		res.Floor = &FloorResult{Note: "not measured over TLS: the floor serves plain TCP"}
	case floorOn && !recordedOpen(streams, rec):
		res.Floor = &FloorResult{Note: "not measured: the recorded stream did not open"}
		floorOn = false
	}
	for r := range fanouts {
		if ctx.Err() != nil {
			break
		}
		got, median, err := set.fanout(ctx, int64(r+1), res.Opened-set.ended.Load(), trigger, wait)
		if err != nil {
			set.fail(KindStream, 1)
			res.MemoryNote = strings.TrimSpace(res.MemoryNote + " trigger: " + err.Error())
			break
		}
		res.Fanout = append(res.Fanout, got.max)
		res.FanoutMedians = append(res.FanoutMedians, median)
		res.Missed += got.missed
		slowestMedian = max(slowestMedian, median)
		report("fanout", int64(r+1), start, 0)
		if r == 0 && floorOn && sequenceNote == "" {
			floor, res.Floor = startFloor(ctx, cfg, rec, n, deadline, func(done int64) { report("floor opening", done, start, 0) })
		}
		if floor != nil && ctx.Err() == nil && floor.round(ctx, int64(r+1), wait) != nil {
			floor.close()
			floor = nil
		}
	}
	if floorOn && sequenceNote != "" && len(res.Fanout) > 0 && ctx.Err() == nil {
		res.Ended = set.ended.Load()
		closeStreams()
		floor, res.Floor = startFloor(ctx, cfg, rec, n, deadline, func(done int64) { report("floor opening", done, start, 0) })
		for r := 0; floor != nil && r < len(res.Fanout) && ctx.Err() == nil; r++ {
			if floor.round(ctx, int64(r+1), wait) != nil {
				floor.close()
				floor = nil
			}
		}
		res.Floor.Sequence = sequenceNote
	}
	res.FanoutMedian = slowestMedian
	if f := res.Floor; f != nil && len(f.Medians) > 0 {
		f.Ratio = floorRatio(res.FanoutMedians, f.Medians)
		f.Met = f.Ratio > 0 && f.Ratio <= FloorGoal && f.Missed == 0 && res.Missed == 0
	}
	res.KeepAlives = set.keepalives.Load()
	res.Interval = summarize(set.intervals)
	if set.intervals.TotalCount() > 0 {
		res.Jitter = time.Duration(set.intervals.ValueAtQuantile(99) - set.intervals.ValueAtQuantile(1))
	}
	res.Ended = max(res.Ended, set.ended.Load())
	set.mu.Lock()
	res.Errors = set.errors
	set.mu.Unlock()
	return res, ctx.Err()
}

// openStreams opens n streams, parallel at a time, each acknowledged; failures are counted
// in set.
func openStreams(ctx context.Context, ep *endpoint, n, parallel int, deadline time.Time, set *streamSet, progress func(int64)) []*listenStream {
	return openRecordedStreams(ctx, ep, n, parallel, deadline, set, nil, progress)
}

// openRecordedStreams is openStreams whose last stream's connection is rec's when rec is set.
func openRecordedStreams(ctx context.Context, ep *endpoint, n, parallel int, deadline time.Time, set *streamSet, rec *wireRecorder, progress func(int64)) []*listenStream {
	out := make([]*listenStream, n)
	var next, opened atomic.Int64
	var wg sync.WaitGroup
	for range min(parallel, n) {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(n) || ctx.Err() != nil {
					return
				}
				var wrap func(net.Conn) net.Conn
				if rec != nil && i == int64(n-1) {
					wrap = func(nc net.Conn) net.Conn { rec.Conn = nc; return rec }
				}
				s, kind, err := openListen(ctx, ep, `"s`+strconv.FormatInt(i, 10)+`"`, deadline, wrap)
				if err != nil {
					set.fail(kind, 1)
					continue
				}
				ev, err := s.next()
				if err != nil || ev.comment || !isAck(ev.data) {
					set.fail(KindStream, 1)
					s.close()
					continue
				}
				out[i] = s
				if d := opened.Add(1); d%100 == 0 {
					progress(d)
				}
			}
		})
	}
	wg.Wait()
	return slices.DeleteFunc(out, func(s *listenStream) bool { return s == nil })
}

func (set *streamSet) fail(kind string, n int64) {
	set.mu.Lock()
	set.errors.add(kind, n)
	set.mu.Unlock()
}

func (set *streamSet) errorCount() int64 {
	set.mu.Lock()
	defer set.mu.Unlock()
	return set.errors.Total()
}

// read consumes s until it ends, recording keepalive intervals and list_changed arrivals.
func (set *streamSet) read(s *listenStream) {
	var last time.Time
	for {
		ev, err := s.next()
		if err != nil {
			if !errors.Is(err, os.ErrDeadlineExceeded) && set.round.Load() >= 0 {
				set.ended.Add(1)
			}
			return
		}
		now := time.Now()
		if ev.comment {
			if !set.observing.Load() {
				last = time.Time{}
				continue
			}
			set.keepalives.Add(1)
			if !last.IsZero() {
				set.mu.Lock()
				record(set.intervals, now.Sub(last))
				set.mu.Unlock()
			}
			last = now
			continue
		}
		last = time.Time{} // an event may reset the server's keepalive timer
		if isListChanged(ev.data) {
			d := time.Duration(now.UnixNano() - set.roundStart.Load())
			set.mu.Lock()
			set.arrivals = append(set.arrivals, d)
			if int64(len(set.arrivals)) == set.want.Load() {
				close(set.roundDone)
			}
			set.mu.Unlock()
		}
	}
}

type fanoutResult struct {
	max    time.Duration
	missed int64
}

// fanout triggers one list_changed and waits until want streams have it.
func (set *streamSet) fanout(ctx context.Context, round, want int64, trigger func(context.Context) error, wait time.Duration) (fanoutResult, time.Duration, error) {
	set.mu.Lock()
	set.arrivals = set.arrivals[:0]
	set.roundDone = make(chan struct{})
	set.want.Store(want)
	done := set.roundDone
	set.mu.Unlock()
	set.round.Store(round)
	set.roundStart.Store(time.Now().UnixNano())
	if err := trigger(ctx); err != nil {
		return fanoutResult{}, 0, err
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
	case <-ctx.Done():
	}
	set.mu.Lock()
	defer set.mu.Unlock()
	arr := slices.Clone(set.arrivals)
	set.want.Store(-1) // late arrivals no longer close the channel
	var r fanoutResult
	r.missed = want - int64(len(arr))
	if len(arr) == 0 {
		return r, 0, nil
	}
	slices.Sort(arr)
	r.max = arr[len(arr)-1]
	return r, arr[len(arr)/2], nil
}

// ProcessRSS reads the resident set size of a local process from /proc/PID/status.
func ProcessRSS(pid int) (uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, fmt.Errorf("loadtest: server memory: %w", err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("loadtest: VmRSS %q: %w", rest, err)
			}
			return kb << 10, nil
		}
	}
	return 0, errors.New("loadtest: no VmRSS in /proc status")
}

// Report implements Reporter.
func (r *StreamsResult) Report() Report {
	rep := Report{Scenario: "sse-keepalive", Target: r.Target, Errors: r.Errors}
	rep.add("streams", float64(r.Opened), UnitCount)
	rep.addDur("open time", r.OpenTime)
	rep.add("keepalives", float64(r.KeepAlives), UnitCount)
	rep.addDur("keepalive p50", r.Interval.P50)
	rep.addDur("keepalive jitter", r.Jitter)
	var worst time.Duration
	for _, f := range r.Fanout {
		worst = max(worst, f)
	}
	rep.addDur("list_changed to all", worst)
	rep.addDur("list_changed median", r.FanoutMedian)
	rep.add("missed", float64(r.Missed), UnitCount)
	r.Floor.report(&rep, r)
	if r.PerStream > 0 {
		rep.add("memory/stream", r.PerStream, UnitBytes)
	}
	if r.Opened < int64(r.Streams) {
		rep.Notes = append(rep.Notes, fmt.Sprintf("ERRORS: only %d of %d streams opened (%s)", r.Opened, r.Streams, r.Errors))
	} else if r.Errors.Total() > 0 {
		rep.Notes = append(rep.Notes, "ERRORS: "+r.Errors.String())
	}
	if r.Missed > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("MISSED: %d stream-rounds did not get list_changed in time", r.Missed))
	}
	if r.Ended > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("ENDED: the server ended %d streams early", r.Ended))
	}
	if r.PerStream > 0 && r.MemorySource != "" {
		rep.Notes = append(rep.Notes, "memory/stream: "+r.MemorySource)
	}
	if r.MemoryNote != "" {
		rep.Notes = append(rep.Notes, "memory: "+r.MemoryNote)
	}
	return rep
}
