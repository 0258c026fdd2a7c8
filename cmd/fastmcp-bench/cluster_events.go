package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/fixtures"
)

// Notification methods the events check counts.
const (
	methodToolsChanged   = "notifications/tools/list_changed"
	methodPromptsChanged = "notifications/prompts/list_changed"
	methodResourceUpdate = "notifications/resources/updated"
)

// eventCount is what a listen stream delivered, by method.
type eventCount map[string]int

// verdict compares the counts with one event of each kind per replica: the error names
// what is missing or duplicated.
func (e eventCount) verdict(replicas int) error {
	var msg string
	for _, m := range []string{methodToolsChanged, methodResourceUpdate} {
		switch n := e[m]; {
		case n < replicas:
			msg += fmt.Sprintf("; %s: received %d of %d (the others were published on replicas this stream is not on)", m, n, replicas)
		case n > replicas:
			msg += fmt.Sprintf("; %s: received %d for %d published (%d duplicates)", m, n, replicas, n-replicas)
		}
	}
	if msg != "" {
		return fmt.Errorf("%s", msg[2:])
	}
	return nil
}

// checkEvents opens one listen stream through the proxy, publishes a tools/list_changed on each
// replica (called directly), then a resources/updated on each, then a prompts/list_changed on
// each as the barrier, each once the stream delivered the one before (or --timeout passed),
// and checks that every one arrived exactly once.
func checkEvents(ctx context.Context, o *clusterOptions, w io.Writer) error {
	return countEvents(ctx, o, w, "events", client.EraModern)
}

// checkLegacyEvents is checkEvents with an initialize-era client, whose stream is its
// session's GET stream (resources/subscribe sent on a POST that may land on any replica).
func checkLegacyEvents(ctx context.Context, o *clusterOptions, w io.Writer) error {
	return countEvents(ctx, o, w, "legacy-events", client.EraLegacy)
}

// countEvents is the events check, listening through the proxy in era; its lines start with
// name.
func countEvents(ctx context.Context, o *clusterOptions, w io.Writer, name string, era client.Era) error {
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	lc, err := connectEra(ctx, o.proxy, o.timeout, era, nil)
	if err != nil {
		return err
	}
	defer lc.Close()
	sub, err := lc.Listen(ctx, client.ListenFilter{ToolsListChanged: true, PromptsListChanged: true,
		ResourceSubscriptions: []string{fixtures.CounterURI}})
	if err != nil {
		return fmt.Errorf("listen through the proxy: %w", err)
	}
	defer sub.Close()
	n := len(o.replicas)
	got := eventCount{}
	methods := make(chan string, 64)
	go func() {
		defer close(methods)
		for ev := range sub.C {
			methods <- ev.Method
		}
	}()
	// await counts what the stream delivers until one more of method arrived. Each event is
	// published only once the previous one arrived: list_changed is a signal that a stream
	// coalesces while it is busy, so events published back to back may rightly arrive as one.
	await := func(method string) error {
		want := got[method] + 1
		for got[method] < want {
			select {
			case m, ok := <-methods:
				if !ok {
					return errors.New("the listen stream ended")
				}
				got[m]++
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	}
	publish := func(tool, method string) error {
		for _, r := range o.replicas {
			c, err := connectModern(ctx, r, o.timeout)
			if err != nil {
				return err
			}
			_, err = c.CallTool(ctx, tool, map[string]any{})
			c.Close()
			if err != nil {
				return fmt.Errorf("%s on %s: %w", tool, r, err)
			}
			if err := await(method); err != nil {
				return fmt.Errorf("%s published on %s: %w", method, r, err)
			}
		}
		return nil
	}
	var pubErr error
	for _, p := range [][2]string{{"test_trigger_tool_change", methodToolsChanged}, {"bump", methodResourceUpdate},
		{"test_trigger_prompt_change", methodPromptsChanged}} { // the last is the barrier: duplicates of the others arrive before it
		if pubErr = publish(p[0], p[1]); pubErr != nil {
			fmt.Fprintf(w, "%s: %v\n", name, pubErr)
			break
		}
	}
	sub.Close()
	for m := range methods { // what was already delivered counts too
		got[m]++
	}
	end, endErr := sub.End()
	fmt.Fprintf(w, "%s: through the proxy, from %d replicas: %s %d, %s %d, %s %d (dropped %d; stream %s",
		name, n, methodToolsChanged, got[methodToolsChanged], methodResourceUpdate, got[methodResourceUpdate],
		methodPromptsChanged, got[methodPromptsChanged], sub.Dropped(), end)
	if endErr != nil {
		fmt.Fprintf(w, ": %v", endErr)
	}
	fmt.Fprintln(w, ")")
	if sub.Dropped() > 0 {
		return fmt.Errorf("the stream dropped %d notifications", sub.Dropped())
	}
	if err := got.verdict(n); err != nil {
		return err
	}
	if got[methodPromptsChanged] != n {
		return fmt.Errorf("%s: received %d of %d (the barrier)", methodPromptsChanged, got[methodPromptsChanged], n)
	}
	return pubErr
}
