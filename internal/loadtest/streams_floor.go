package loadtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"time"
)

// FloorGoal is issue 24's goal for the listen fan-out: its median stream within this factor of
// the write floor's, measured in the same run.
const FloorGoal = 1.1

// RunningFloor is a started write floor (a FloorServer, in process or in a process of its own).
type RunningFloor struct {
	// URL is the floor's endpoint.
	URL string
	// Where says how the floor runs, for the report ("a child process, as the server is").
	Where string
	// Writers is the number of goroutines that write each round.
	Writers int
	// Stop ends the floor and frees its connections.
	Stop func()
}

// FloorStarter starts a write floor serving wire on at most streams listen streams.
type FloorStarter func(ctx context.Context, wire FloorWire, streams int) (*RunningFloor, error)

// InProcessFloor is a FloorStarter that serves the floor from this process.
func InProcessFloor(_ context.Context, wire FloorWire, streams int) (*RunningFloor, error) {
	f, err := NewFloorServer("127.0.0.1:0", wire, streams, 0)
	if err != nil {
		return nil, err
	}
	served := make(chan error, 1)
	go func() { served <- f.Serve() }()
	return &RunningFloor{URL: f.URL(), Where: "in process", Writers: f.Writers(), Stop: func() {
		_ = f.Close()
		<-served
	}}, nil
}

// FloorResult is the write floor's side of sse-keepalive: its rounds alternate with the
// server's, over as many loopback streams, each sent the server's own list_changed bytes.
type FloorResult struct {
	Where   string `json:"where"`
	Writers int    `json:"writers"`
	Opened  int64  `json:"opened"`
	// EventBytes is the length of the event written to every stream (captured from one of
	// the server's streams).
	EventBytes int `json:"event_bytes"`
	// Fanout and Medians are, per round, the time from the trigger until the last stream had
	// the event and until the median one had it; Missed as in StreamsResult.
	Fanout  []time.Duration `json:"fanout_ns"`
	Medians []time.Duration `json:"medians_ns"`
	Missed  int64           `json:"missed"`
	// Ratio is the median over the rounds of the server's median stream over that of the
	// floor's (0 when either is missing); Met whether it is within FloorGoal with every
	// stream of both reached in every round.
	Ratio float64 `json:"ratio"`
	Met   bool    `json:"met"`
	// Note says why the floor was not measured, or what went wrong.
	Note string `json:"note,omitempty"`
	// Sequence says why the floor's rounds followed the server's instead of alternating
	// with them (empty when they alternated).
	Sequence string `json:"sequence,omitempty"`
}

// floorRatio is the median of the server's round medians over the floor's (0 when either has
// none).
func floorRatio(server, floor []time.Duration) float64 {
	s, f := medianDuration(server), medianDuration(floor)
	if s <= 0 || f <= 0 {
		return 0
	}
	return float64(s) / float64(f)
}

func medianDuration(ds []time.Duration) time.Duration {
	vs := make([]float64, len(ds))
	for i, d := range ds {
		vs[i] = float64(d)
	}
	return time.Duration(Median(vs))
}

// maxWireRecord bounds what wireRecorder keeps: the head, the acknowledgement, the keepalives
// of the window and the first event fit many times over.
const maxWireRecord = 256 << 10

// wireRecorder is one listen stream's connection that keeps the first bytes it reads: the
// server's response as it was on the wire.
type wireRecorder struct {
	net.Conn
	mu  sync.Mutex
	buf []byte
}

func (w *wireRecorder) Read(p []byte) (int, error) {
	n, err := w.Conn.Read(p)
	w.mu.Lock()
	if room := maxWireRecord - len(w.buf); room > 0 {
		w.buf = append(w.buf, p[:min(n, room)]...)
	}
	w.mu.Unlock()
	return n, err
}

// wire returns the stream's head, acknowledgement and first list_changed event as recorded.
func (w *wireRecorder) wire() (FloorWire, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return captureWire(w.buf)
}

// captureWire splits a listen stream's raw bytes into its response head (through the blank
// line), its acknowledgement and its first tools/list_changed: whole chunks of a chunked body,
// whole events (through their blank line) otherwise.
func captureWire(raw []byte) (FloorWire, error) {
	i := bytes.Index(raw, []byte("\r\n\r\n"))
	if i < 0 {
		return FloorWire{}, errors.New("loadtest: no response head in the recorded stream")
	}
	w := FloorWire{Head: bytes.Clone(raw[:i+4])}
	units := sseUnits
	if strings.Contains(strings.ToLower(string(w.Head)), "\r\ntransfer-encoding: chunked\r\n") {
		units = chunkUnits
	}
	for unit, payload := range units(raw[i+4:]) {
		switch {
		case w.Ack == nil && isAck(payload):
			w.Ack = bytes.Clone(unit)
		case isListChanged(payload):
			w.Event = bytes.Clone(unit)
			if w.Ack == nil {
				return FloorWire{}, errors.New("loadtest: the recorded stream has no acknowledgement before its event")
			}
			return w, nil
		}
	}
	return FloorWire{}, fmt.Errorf("loadtest: no list_changed in the %d recorded bytes of a stream", len(raw))
}

// sseUnits yields each whole event of a plain event-stream body: its bytes through the blank
// line that ends it, twice (the unit is its own payload).
func sseUnits(body []byte) func(yield func(unit, payload []byte) bool) {
	return func(yield func(unit, payload []byte) bool) {
		start, pos := 0, 0
		for {
			j := bytes.IndexByte(body[pos:], '\n')
			if j < 0 {
				return
			}
			line := bytes.TrimSuffix(body[pos:pos+j], []byte("\r"))
			pos += j + 1
			if len(line) > 0 {
				continue
			}
			if pos-start > 2 && !yield(body[start:pos], body[start:pos]) {
				return
			}
			start = pos
		}
	}
}

// chunkUnits yields each whole chunk of a chunked body (size line, data and CRLF) with its
// data.
func chunkUnits(body []byte) func(yield func(unit, payload []byte) bool) {
	return func(yield func(unit, payload []byte) bool) {
		for pos := 0; ; {
			j := bytes.Index(body[pos:], []byte("\r\n"))
			if j < 0 {
				return
			}
			size, _, _ := bytes.Cut(body[pos:pos+j], []byte(";"))
			var n int
			if _, err := fmt.Sscanf(string(size), "%x", &n); err != nil || n <= 0 {
				return
			}
			end := pos + j + 2 + n + 2
			if end > len(body) {
				return
			}
			if !yield(body[pos:end], body[pos+j+2:pos+j+2+n]) {
				return
			}
			pos = end
		}
	}
}

// floorRun is the floor's side of one Streams run: its streams, read by the same code as the
// server's, and its rounds.
type floorRun struct {
	res     *FloorResult
	ep      *endpoint
	set     *streamSet
	streams []*listenStream
	readers sync.WaitGroup
	stop    func()
}

// recordedOpen tells whether rec's stream is one of the open streams.
func recordedOpen(streams []*listenStream, rec *wireRecorder) bool {
	for _, s := range streams {
		if s.nc == net.Conn(rec) {
			return true
		}
	}
	return false
}

// startFloor starts cfg.Floor with the bytes rec recorded from one of the server's streams and
// opens n streams on it. Its result carries a note instead when the floor cannot run; run is
// then nil.
func startFloor(ctx context.Context, cfg StreamsConfig, rec *wireRecorder, n int, deadline time.Time, progress func(int64)) (run *floorRun, res *FloorResult) {
	res = &FloorResult{}
	wire, err := rec.wire()
	if err != nil {
		res.Note = "not measured: " + err.Error()
		return nil, res
	}
	res.EventBytes = len(wire.Event)
	rf, err := cfg.Floor(ctx, wire, n)
	if err != nil {
		res.Note = "not measured: " + err.Error()
		return nil, res
	}
	res.Where, res.Writers = rf.Where, rf.Writers
	t := cfg.Target
	t.URL, t.Name, t.PID, t.TLS = rf.URL, "floor", 0, nil
	ep, err := t.parse()
	if err != nil {
		rf.Stop()
		res.Note = "not measured: " + err.Error()
		return nil, res
	}
	run = &floorRun{res: res, ep: ep, set: &streamSet{intervals: newHist()}, stop: rf.Stop}
	run.streams = openStreams(ctx, ep, n, orDefault(cfg.OpenParallel, DefaultOpenParallel), deadline, run.set, progress)
	res.Opened = int64(len(run.streams))
	if res.Opened < int64(n) {
		res.Note = fmt.Sprintf("only %d of %d floor streams opened (%s)", res.Opened, n, run.set.errors.String())
	}
	for _, s := range run.streams {
		run.readers.Go(func() { run.set.read(s) })
	}
	// One round unmeasured: the server's streams come to the rounds warm from the keepalive
	// window, the floor's straight from opening.
	if err := run.round(ctx, 0, DefaultFanoutWait); err != nil {
		run.close()
		return nil, res
	}
	res.Fanout, res.Medians, res.Missed = nil, nil, 0
	return run, res
}

// round runs the floor's round r: the same tools/call as the server's default trigger, on a
// connection of its own, makes the floor write its event to every stream.
func (f *floorRun) round(ctx context.Context, r int64, wait time.Duration) error {
	trigger := func(ctx context.Context) error { return callOnce(ctx, f.ep, "toggle", "{}", DefaultTimeout) }
	got, median, err := f.set.fanout(ctx, r, f.res.Opened-f.set.ended.Load(), trigger, wait)
	if err != nil {
		f.res.Note = strings.TrimSpace(f.res.Note + " trigger: " + err.Error())
		return err
	}
	f.res.Fanout = append(f.res.Fanout, got.max)
	f.res.Medians = append(f.res.Medians, median)
	f.res.Missed += got.missed
	return nil
}

// close closes the floor's streams, waits for their readers and stops the floor.
func (f *floorRun) close() {
	f.set.round.Store(-1)
	for _, s := range f.streams {
		s.close()
	}
	f.readers.Wait()
	f.stop()
}

// Metric names of the floor's figures in sse-keepalive's report.
const (
	MetricFloorToAll  = "write floor to all"
	MetricFloorMedian = "write floor median"
	MetricFloorRatio  = "median/write floor"
	// MetricRoundsMedian is the server's figure the ratio divides: its median stream, median
	// over the rounds (list_changed median is the slowest round's).
	MetricRoundsMedian = "median of rounds"
)

// report adds the floor's figures and notes to rep, the report of s (nothing when f is nil).
func (f *FloorResult) report(rep *Report, s *StreamsResult) {
	if f == nil {
		return
	}
	if f.Note != "" {
		rep.Notes = append(rep.Notes, "floor: "+f.Note)
	}
	if len(f.Medians) == 0 {
		return
	}
	rep.addDur(MetricRoundsMedian, medianDuration(s.FanoutMedians))
	rep.addDur(MetricFloorToAll, slices.Max(f.Fanout))
	rep.addDur(MetricFloorMedian, medianDuration(f.Medians))
	if f.Ratio > 0 {
		rep.add(MetricFloorRatio, f.Ratio, UnitCount)
	}
	if f.Missed > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("MISSED: %d floor stream-rounds did not get the event in time", f.Missed))
	}
	var b strings.Builder
	order := "rounds alternate"
	if f.Sequence != "" {
		order = "ROUNDS IN SEQUENCE, not alternated (" + f.Sequence + ")"
	}
	fmt.Fprintf(&b, "floor: %d streams, %s, each written the server's %d-byte list_changed once a round by %d goroutines; %s (to all / median stream):",
		f.Opened, f.Where, f.EventBytes, f.Writers, order)
	for i := range max(len(s.Fanout), len(f.Fanout)) {
		fmt.Fprintf(&b, " %d. %s %s / %s, floor %s / %s;", i+1, s.Target,
			roundFigure(s.Fanout, i), roundFigure(s.FanoutMedians, i), roundFigure(f.Fanout, i), roundFigure(f.Medians, i))
	}
	rep.Notes = append(rep.Notes, strings.TrimSuffix(b.String(), ";"))
}

func roundFigure(ds []time.Duration, i int) string {
	if i >= len(ds) {
		return "-"
	}
	return FormatDuration(ds[i])
}
