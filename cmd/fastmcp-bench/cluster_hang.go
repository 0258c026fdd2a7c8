package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/fixtures"
)

// hangTally is what the no-hang workers saw.
type hangTally struct {
	mu       sync.Mutex
	requests int
	hung     int            // requests that reached the deadline
	errors   map[string]int // the other failures, by message
	slowest  time.Duration
}

func (t *hangTally) add(took, deadline time.Duration, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.requests++
	t.slowest = max(t.slowest, took)
	switch {
	case err == nil:
	case errors.Is(err, context.DeadlineExceeded) || took >= deadline:
		t.hung++
	default:
		if t.errors == nil {
			t.errors = map[string]int{}
		}
		msg := err.Error()
		if len(msg) > 120 {
			msg = msg[:120] + "…"
		}
		t.errors[msg]++
	}
}

// errorList lists the errors by message, most frequent first.
func (t *hangTally) errorList() string {
	var parts []string
	keys := slices.SortedFunc(maps.Keys(t.errors), func(a, b string) int { return t.errors[b] - t.errors[a] })
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d× %s", t.errors[k], k))
	}
	return strings.Join(parts, "; ")
}

// checkNoHang drives echo and bump (a catalog event on every call) through the proxy from
// o.workers clients for o.duration, each request bounded by o.deadline, with a listen stream
// open beside them; then a new listen stream must open. What the bus does meanwhile (the
// cluster script stops and restarts it) must not hold any request.
func checkNoHang(ctx context.Context, o *clusterOptions, w io.Writer) error {
	lc, err := connectModern(ctx, o.proxy, o.deadline)
	if err != nil {
		return err
	}
	defer lc.Close()
	filter := client.ListenFilter{ToolsListChanged: true, ResourceSubscriptions: []string{fixtures.CounterURI}}
	// The stream lives as long as ctx (Listen ties it to its context); the step's timeout in
	// the cluster script bounds an acknowledgement that never comes.
	sub, err := lc.Listen(ctx, filter)
	if err != nil {
		return fmt.Errorf("listen before the load: %w", err)
	}
	events := 0
	counted := make(chan struct{})
	go func() {
		defer close(counted)
		for range sub.C {
			events++
		}
	}()

	tally := &hangTally{}
	stop := time.Now().Add(o.duration)
	var wg sync.WaitGroup
	for i := range o.workers {
		wg.Go(func() {
			c, err := connectModern(ctx, o.proxy, o.deadline)
			if err != nil {
				tally.add(0, o.deadline, err)
				return
			}
			defer c.Close()
			for n := 0; time.Now().Before(stop) && ctx.Err() == nil; n++ {
				tool, args := "echo", map[string]any{"text": "no-hang"}
				if (n+i)%2 == 1 {
					tool, args = "bump", map[string]any{}
				}
				start := time.Now()
				rctx, cancel := context.WithTimeout(ctx, o.deadline)
				_, err := c.CallTool(rctx, tool, args)
				cancel()
				tally.add(time.Since(start), o.deadline, err)
			}
		})
	}
	wg.Wait()
	end, endErr := sub.End()
	sub.Close()
	<-counted
	fmt.Fprintf(w, "no-hang: %d requests through the proxy in %v (%d workers), slowest %v, hung (≥ %v) %d, other errors %d",
		tally.requests, o.duration, o.workers, tally.slowest.Round(time.Millisecond), o.deadline, tally.hung, errorTotal(tally.errors))
	fmt.Fprintln(w)
	if len(tally.errors) > 0 {
		fmt.Fprintf(w, "no-hang: errors: %s\n", tally.errorList())
	}
	state := end.String()
	if endErr != nil {
		state += ": " + endErr.Error()
	}
	fmt.Fprintf(w, "no-hang: the listen stream opened before the load received %d events and is %s\n", events, state)
	actx, acancel := context.WithTimeout(ctx, o.deadline)
	defer acancel()
	after, err := lc.Listen(actx, filter)
	if err != nil {
		return fmt.Errorf("a listen stream opened after the load was not acknowledged within %v: %w", o.deadline, err)
	}
	after.Close()
	fmt.Fprintln(w, "no-hang: a new listen stream opened after the load")
	if tally.hung > 0 {
		return fmt.Errorf("%d requests hung (reached the %v deadline)", tally.hung, o.deadline)
	}
	return nil
}

func errorTotal(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
