package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

// compare --cluster's fan-out part, after the throughput rounds: what one event costs from
// the replica that publishes it ("A") to the listen streams of another ("B") over NATS and
// over PostgreSQL, against the in-memory hub of one Server, and how many events per second
// one NATS subject and one LISTEN/NOTIFY channel carry. The replicas are Servers in this
// process, each behind a native listener on 127.0.0.1; the streams are real HTTP
// subscriptions/listen streams (2026-07-28), read off their sockets by loadtest's readers.

// fanoutPlan bounds the fan-out part.
type fanoutPlan struct {
	streams  []int         // listen streams on replica B, a row each
	events   int           // events timed per row, one at a time
	wait     time.Duration // how long one event may take to reach every stream
	window   time.Duration // of the events-per-second run
	inFlight int           // events the rate run keeps on their way at most
}

// The plans of compare --cluster and of --quick. inFlight stays under the buses' outbound
// buffer (bus.DefaultBuffer, 4,096), so the rate run measures what a bus carries, not how
// fast it drops.
var (
	fanoutFull  = fanoutPlan{streams: []int{1, 100, 1000}, events: 200, wait: 2 * time.Second, window: 2 * time.Second, inFlight: 1024}
	fanoutQuick = fanoutPlan{streams: []int{1, 10}, events: 20, wait: 2 * time.Second, window: 200 * time.Millisecond, inFlight: 1024}
)

// fanoutRow is one bus with one number of streams, or a bus not measured (note says why).
type fanoutRow struct {
	bus      string
	streams  int
	perEvent []time.Duration // each event's time from Publish until the last stream read it
	rate     *fanoutRate     // the bus's rate run, on its first row
	note     string
}

// compareClusterFanout runs the fan-out part and prints its table; false when a bus that
// was to be measured failed.
func compareClusterFanout(ctx context.Context, o *compareOptions, live *liveLine) bool {
	plan := fanoutFull
	if o.quick {
		plan = fanoutQuick
	}
	buses, stop, err := fanoutBuses(ctx, fanoutSourcesFor(o))
	defer stop()
	if err != nil {
		live.printf("fan-out: %v", err)
		return false
	}
	start := time.Now()
	rows, ok := measureFanout(ctx, plan, buses, live)
	live.printf("fan-out part: %s", time.Since(start).Round(100*time.Millisecond))
	printFanoutTable(os.Stdout, plan, rows)
	return ok
}

// measureFanout measures each bus in turn.
func measureFanout(ctx context.Context, plan fanoutPlan, buses []fanoutBus, live *liveLine) (rows []*fanoutRow, ok bool) {
	ok = true
	for _, b := range buses {
		if b.skip != "" {
			live.printf("fan-out %s: %s", b.name, b.skip)
			rows = append(rows, &fanoutRow{bus: b.name, note: b.skip})
			continue
		}
		got, err := measureBusFanout(ctx, b, plan, live)
		rows = append(rows, got...)
		if err != nil {
			live.printf("fan-out %s: %v", b.name, err)
			rows = append(rows, &fanoutRow{bus: b.name, note: "failed: " + err.Error()})
			ok = false
		}
	}
	return rows, ok
}

// fanoutPair is replica A, which publishes, and replica B, which holds the streams, each on
// its own connection to the bus; for the hub they are one Server.
type fanoutPair struct {
	name         string
	a, b         *fanoutReplica
	busA, busB   crossBus // nil for the hub
	openReplicas []*fanoutReplica
}

// measureBusFanout measures one bus: a row per number of streams, then the rate run, each on
// a pair of replicas of its own. (A listen stream whose client went stays open on the server
// until its next write fails, a keepalive up to 15 s later: streams of a row before would
// still take a share of each event.)
func measureBusFanout(ctx context.Context, fb fanoutBus, plan fanoutPlan, live *liveLine) ([]*fanoutRow, error) {
	var rows []*fanoutRow
	for _, n := range plan.streams {
		row, err := withFanoutPair(ctx, fb, n, func(p *fanoutPair) (*fanoutRow, error) { return p.perEvent(ctx, n, plan, live) })
		if err != nil {
			return rows, err
		}
		rows = append(rows, row)
		live.printf("fan-out %-13s %5d streams  p50 %s", fb.name, n, loadtest.FormatDuration(quantile(row.perEvent, 0.5)))
	}
	rate, err := withFanoutPair(ctx, fb, 1, func(p *fanoutPair) (*fanoutRate, error) { return p.rate(ctx, plan) })
	if err != nil {
		return rows, err
	}
	rows[0].rate = rate
	live.printf("fan-out %-13s rate: %.0f events/s (%d in %s, %s dropped, the stream read %d notifications)",
		fb.name, rate.perSecond(), rate.delivered, rate.elapsed.Round(time.Millisecond), rate.droppedText(), rate.notified)
	return rows, nil
}

// withFanoutPair runs f on a pair of replicas started for it, B taking streams streams.
func withFanoutPair[T any](ctx context.Context, fb fanoutBus, streams int, f func(*fanoutPair) (T, error)) (T, error) {
	p, err := startFanoutPair(ctx, fb, streams)
	defer p.stop()
	if err != nil {
		var zero T
		return zero, err
	}
	return f(p)
}

// startFanoutPair connects the replicas to the bus and starts them; stop ends what started.
func startFanoutPair(ctx context.Context, fb fanoutBus, streams int) (*fanoutPair, error) {
	p := &fanoutPair{name: fb.name}
	if fb.open == nil {
		r, err := startFanoutReplica(nil, streams)
		if err != nil {
			return p, err
		}
		p.openReplicas = append(p.openReplicas, r)
		p.a, p.b = r, r
		return p, nil
	}
	octx, cancel := context.WithTimeout(ctx, busOpenTimeout)
	defer cancel()
	var err error
	if p.busA, err = fb.open(octx, "A"); err != nil {
		return p, fmt.Errorf("replica A's bus: %w", err)
	}
	if p.busB, err = fb.open(octx, "B"); err != nil {
		return p, fmt.Errorf("replica B's bus: %w", err)
	}
	if p.a, err = startFanoutReplica(p.busA, 1); err != nil {
		return p, err
	}
	p.openReplicas = append(p.openReplicas, p.a)
	if p.b, err = startFanoutReplica(p.busB, streams); err != nil {
		return p, err
	}
	p.openReplicas = append(p.openReplicas, p.b)
	return p, nil
}

// stop stops the replicas, then closes their buses.
func (p *fanoutPair) stop() {
	for _, r := range p.openReplicas {
		r.stop()
	}
	for _, b := range []crossBus{p.busA, p.busB} {
		if b != nil {
			_ = b.Close()
		}
	}
}

// perEvent opens n streams on B and times plan.events tools/list_changed published on A, one
// at a time, each until every stream has read it.
func (p *fanoutPair) perEvent(ctx context.Context, n int, plan fanoutPlan, live *liveLine) (*fanoutRow, error) {
	res, err := loadtest.Streams(ctx, loadtest.StreamsConfig{
		Target:  loadtest.Target{URL: p.b.srv.URL(), Name: p.name},
		Streams: n,
		// No keepalive window: only the fan-out rounds.
		Duration:   time.Nanosecond,
		Fanouts:    plan.events,
		FanoutWait: plan.wait,
		Trigger: func(context.Context) error {
			p.a.core.Publish(fastmcp.Event{Kind: fastmcp.ToolsListChanged})
			return nil
		},
		Progress: live.update,
	})
	if err != nil {
		return nil, err
	}
	switch {
	case res.Opened < int64(n):
		return nil, fmt.Errorf("%d streams: only %d opened (%s)", n, res.Opened, res.Errors)
	case res.Errors.Total() > 0:
		return nil, fmt.Errorf("%d streams: %s", n, res.Errors)
	case res.Missed > 0:
		return nil, fmt.Errorf("%d streams: %d times a stream did not read an event within %s", n, res.Missed, plan.wait)
	case res.Ended > 0:
		return nil, fmt.Errorf("%d streams: replica B ended %d of them early", n, res.Ended)
	case len(res.Fanout) < plan.events:
		return nil, fmt.Errorf("%d streams: %d of %d events timed", n, len(res.Fanout), plan.events)
	}
	return &fanoutRow{bus: p.name, streams: n, perEvent: res.Fanout}, nil
}

// quantile is the nearest-rank q-quantile of ds (0 for none).
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(ds))
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// printFanoutTable prints a line per measured row and, below, why a bus has none.
func printFanoutTable(w io.Writer, plan fanoutPlan, rows []*fanoutRow) {
	fmt.Fprintf(w, "\nfan-out of one tools/list_changed from replica A to the listen streams of replica B (Servers in this process on 127.0.0.1,\n"+
		"HTTP streams in 2026-07-28; the hub: one Server): per event from Publish on A until every stream read it, %d events one\n"+
		"at a time, per stream = p50 / streams; events/s: what replica B received from the bus in %s with 1 stream open, the\n"+
		"publisher keeping at most %d events on their way; dropped: the bus's dropped and lost counts meanwhile\n",
		plan.events, plan.window, plan.inFlight)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "bus\tstreams\tper event p50\tp99\tper stream\tevents/s\tdropped\t")
	var notes []string
	for _, r := range rows {
		if r.note != "" {
			notes = append(notes, r.bus+": "+r.note)
			continue
		}
		p50 := quantile(r.perEvent, 0.5)
		rate, dropped := "-", "-"
		if r.rate != nil {
			rate, dropped = strconv.FormatFloat(r.rate.perSecond(), 'f', 0, 64), r.rate.droppedText()
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t\n", r.bus, r.streams, loadtest.FormatDuration(p50),
			loadtest.FormatDuration(quantile(r.perEvent, 0.99)), loadtest.FormatDuration(p50/time.Duration(r.streams)), rate, dropped)
	}
	_ = tw.Flush()
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
}
