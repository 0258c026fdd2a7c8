package main

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fastmcp-go/fastmcp/bus"
	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// fanoutRate is the outcome of a bus's rate run.
type fanoutRate struct {
	delivered uint64        // tools/list_changed events replica B received in the window
	elapsed   time.Duration // the window as it was
	// dropped counts the events replica A's bus dropped and replica B's lost in the window;
	// counted is false for the hub, which has no such counts.
	dropped uint64
	counted bool
	// losses counts the EventsLost replica B delivered in the window (its stream then ends).
	losses uint64
	// notified counts the notifications the stream read: fewer than delivered, since a
	// stream coalesces the list_changed events published while it was writing.
	notified int64
}

func (r *fanoutRate) perSecond() float64 {
	if r.elapsed <= 0 {
		return 0
	}
	return float64(r.delivered) / r.elapsed.Seconds()
}

func (r *fanoutRate) droppedText() string {
	s := "-"
	if r.counted {
		s = strconv.FormatUint(r.dropped, 10)
	}
	if r.losses > 0 {
		s += fmt.Sprintf(" (%d EventsLost)", r.losses)
	}
	return s
}

// rate publishes tools/list_changed on A for plan.window as fast as the bus takes them (at
// most plan.inFlight published and not yet received by B, so that the outbound buffer never
// fills) while one listen stream is open on B, and counts what B received from the bus.
func (p *fanoutPair) rate(ctx context.Context, plan fanoutPlan) (*fanoutRate, error) {
	// The stream's notifications outrun its reader here by design: the client's log of each
	// one it drops would be noise.
	c, err := client.Connect(ctx, p.b.srv.URL(), client.Config{Era: client.EraModern, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, fmt.Errorf("rate run: %w", err)
	}
	defer c.Close()
	sub, err := c.Listen(ctx, client.ListenFilter{ToolsListChanged: true})
	if err != nil {
		return nil, fmt.Errorf("rate run: listen: %w", err)
	}
	r := &fanoutRate{counted: p.busA != nil}
	var reading sync.WaitGroup
	reading.Go(func() {
		for range sub.C {
			r.notified++
		}
	})
	defer func() {
		_ = sub.Close()
		reading.Wait()
	}()

	// A credit per event on its way: the publisher takes one, B's delivery gives it back.
	credits := make(chan struct{}, plan.inFlight)
	var delivered, lost atomic.Uint64
	cancel := p.b.core.Subscribe(func(e fastmcp.Event) {
		switch e.Kind {
		case fastmcp.ToolsListChanged:
			delivered.Add(1)
			select {
			case <-credits:
			default:
			}
		case fastmcp.EventsLost:
			lost.Add(1)
		}
	})
	defer cancel()

	before := p.busStats()
	e := fastmcp.Event{Kind: fastmcp.ToolsListChanged}
	timer := time.NewTimer(plan.window)
	defer timer.Stop()
	start := time.Now()
publish:
	for {
		select {
		case credits <- struct{}{}:
			p.a.core.Publish(e)
		case <-timer.C:
			break publish
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	r.delivered, r.elapsed = delivered.Load(), time.Since(start)
	after := p.busStats()
	r.dropped = after.Dropped - before.Dropped + after.Lost - before.Lost
	r.losses = lost.Load()
	return r, nil
}

// busStats is A's dropped and B's lost counts so far (zero for the hub).
func (p *fanoutPair) busStats() bus.Stats {
	if p.busA == nil {
		return bus.Stats{}
	}
	return bus.Stats{Dropped: p.busA.Stats().Dropped, Lost: p.busB.Stats().Lost}
}
