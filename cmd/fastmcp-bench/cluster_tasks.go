package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/fastmcp-go/fastmcp/client"
)

// createTasks creates o.count report tasks through the proxy and writes the ids of those the
// server acknowledged to o.out (the file is written even when some creations failed, so the
// acknowledged ones are still awaited).
func createTasks(ctx context.Context, o *clusterOptions, w io.Writer) error {
	c, err := connectModern(ctx, o.proxy, o.timeout)
	if err != nil {
		return err
	}
	defer c.Close()
	var ids []string
	var failures []string
	for i := range o.count {
		args := map[string]any{"topic": fmt.Sprintf("cluster task %d", i+1), "seconds": o.seconds}
		res, h, err := c.CallToolTask(ctx, "report", args)
		switch {
		case err != nil:
			failures = append(failures, err.Error())
		case h == nil:
			failures = append(failures, fmt.Sprintf("report answered at once (isError %v) instead of creating a task", res.IsError))
		default:
			ids = append(ids, h.ID)
		}
	}
	if err := os.WriteFile(o.out, []byte(strings.Join(ids, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(w, "tasks-create: %d of %d report tasks (%ds each) acknowledged through the proxy\n", len(ids), o.count, o.seconds)
	if len(failures) > 0 {
		return fmt.Errorf("%d creations failed, the first: %s", len(failures), failures[0])
	}
	return nil
}

// awaitTasks polls tasks/get through the proxy for every id of o.ids until each is terminal
// or o.timeout has passed. A failed poll (a replica killed mid-request, a proxy 503) is
// retried: the check is about the task, not one answer.
func awaitTasks(ctx context.Context, o *clusterOptions, w io.Writer) error {
	b, err := os.ReadFile(o.ids)
	if err != nil {
		return err
	}
	ids := strings.Fields(string(b))
	if len(ids) == 0 {
		return fmt.Errorf("%s lists no task", o.ids)
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	c, err := connectModern(ctx, o.proxy, 10*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	final := map[string]client.TaskStatus{}
	lastErr := map[string]string{}
	pending := slices.Clone(ids)
	polls, failedPolls := 0, 0
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for len(pending) > 0 && ctx.Err() == nil {
		var still []string
		for _, id := range pending {
			polls++
			d, err := c.Task(id).Get(ctx)
			switch {
			case err != nil:
				failedPolls++
				lastErr[id] = err.Error()
				still = append(still, id)
			case d.Status.Terminal():
				final[id] = d.Status
			default:
				lastErr[id] = "still " + string(d.Status)
				still = append(still, id)
			}
		}
		if pending = still; len(pending) > 0 {
			select {
			case <-tick.C:
			case <-ctx.Done():
			}
		}
	}
	byStatus := map[client.TaskStatus]int{}
	for _, s := range final {
		byStatus[s]++
	}
	var parts []string
	for _, s := range slices.Sorted(maps.Keys(byStatus)) {
		parts = append(parts, fmt.Sprintf("%s %d", s, byStatus[s]))
	}
	fmt.Fprintf(w, "tasks-await: %d of %d tasks terminal through the proxy (%s); %d of %d polls failed and were retried\n",
		len(final), len(ids), strings.Join(parts, ", "), failedPolls, polls)
	if len(pending) > 0 {
		return fmt.Errorf("%d tasks not terminal after %v, e.g. %s: %s", len(pending), o.timeout, pending[0], lastErr[pending[0]])
	}
	return nil
}
