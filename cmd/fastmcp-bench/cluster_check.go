package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/fastmcp-go/fastmcp/client"
)

func init() {
	register(command{
		Name:    "cluster-check",
		Summary: "one check of the cluster test (interop/cluster.sh) through a proxy: events, legacy-events, elicitation, tasks-create, tasks-await, no-hang",
		Run:     clusterCheckCmd,
	})
}

const clusterCheckUsage = `Usage: fastmcp-bench cluster-check CHECK --proxy URL [flags]

The checks interop/cluster.sh runs against replicas of fastmcp-bench serve --fixtures
demo,conformance behind a proxy (--proxy, the endpoint URL through it). Each prints what it
saw, one line per finding, and exits 0 when the check holds, 1 when it does not.

  events        a subscriptions/listen stream through the proxy receives every
                tools/list_changed and resources/updated published on any --replica
                (test_trigger_tool_change and bump called on each replica directly) exactly
                once: after those, a prompts/list_changed from every replica is the barrier
                that ends the count, so a duplicate has arrived by then
  legacy-events events with an initialize-era client (2025-11-25): its session's GET stream
                through the proxy (serve --legacy-sessions) hears the same, exactly once
  elicitation   an initialize-era client calls test_elicitation --count times through the
                proxy, each bounded by --deadline; its answer to elicitation/create is a
                POST of its own, which a round-robin proxy sends to another replica than
                the call's: every call must complete with the answer it gave
  tasks-create  creates --count report tasks of --seconds through the proxy and writes the
                ids of the acknowledged ones (a CreateTaskResult received) to --out
  tasks-await   reads the ids of --ids and polls tasks/get through the proxy until each is
                terminal, for at most --timeout; prints the statuses
  no-hang       for --duration, --workers clients call echo and bump through the proxy, each
                request bounded by --deadline, beside a listen stream: no request may reach
                the deadline (a hang); errors are counted and printed; at the end a new listen
                stream must open

Flags:
`

// clusterOptions are the flags of cluster-check.
type clusterOptions struct {
	proxy             string
	replicas          []string
	count             int
	seconds           int
	out, ids          string
	timeout, duration time.Duration
	deadline          time.Duration
	workers           int
}

// clusterChecks are the checks by name.
var clusterChecks = map[string]func(ctx context.Context, o *clusterOptions, w io.Writer) error{
	"events":        checkEvents,
	"legacy-events": checkLegacyEvents,
	"elicitation":   checkElicitation,
	"tasks-create":  createTasks,
	"tasks-await":   awaitTasks,
	"no-hang":       checkNoHang,
}

// parseClusterCheck reads the check's name and flags.
func parseClusterCheck(args []string, stderr io.Writer) (string, *clusterOptions, error) {
	o := &clusterOptions{}
	fs := flag.NewFlagSet("cluster-check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), clusterCheckUsage)
		fs.PrintDefaults()
	}
	fs.StringVar(&o.proxy, "proxy", "", "endpoint `URL` through the proxy (required)")
	fs.Var(targetsFlag{&o.replicas}, "replica", "events, legacy-events: endpoint `URL` of one replica, directly (repeatable, at least one)")
	fs.IntVar(&o.count, "count", 20, "tasks-create: tasks to create; elicitation: calls to make")
	fs.IntVar(&o.seconds, "seconds", 4, "tasks-create: how long each report task works")
	fs.StringVar(&o.out, "out", "", "tasks-create: `file` the acknowledged task ids are written to, one a line")
	fs.StringVar(&o.ids, "ids", "", "tasks-await: `file` of task ids, one a line")
	fs.DurationVar(&o.timeout, "timeout", 60*time.Second, "events, legacy-events, tasks-await: how long to wait for what is expected")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "no-hang: how long the load lasts")
	fs.DurationVar(&o.deadline, "deadline", 5*time.Second, "no-hang: the bound of one request, past which it counts as hung; elicitation: the bound of one call")
	fs.IntVar(&o.workers, "workers", 4, "no-hang: concurrent clients")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return "", nil, err
	}
	if len(pos) != 1 || clusterChecks[pos[0]] == nil {
		fmt.Fprintf(stderr, "cluster-check: name one check: events, legacy-events, elicitation, tasks-create, tasks-await or no-hang (got %q)\n", pos)
		return "", nil, errUsage
	}
	check := pos[0]
	switch {
	case o.proxy == "":
		err = errors.New("--proxy is required")
	case (check == "events" || check == "legacy-events") && len(o.replicas) == 0:
		err = errors.New(check + " needs at least one --replica")
	case check == "elicitation" && (o.count < 1 || o.deadline <= 0):
		err = errors.New("elicitation needs a --count of at least 1 and a positive --deadline")
	case check == "tasks-create" && (o.out == "" || o.count < 1 || o.seconds < 0):
		err = errors.New("tasks-create needs --out, a --count of at least 1 and --seconds ≥ 0")
	case check == "tasks-await" && o.ids == "":
		err = errors.New("tasks-await needs --ids")
	case check == "no-hang" && (o.workers < 1 || o.duration <= 0 || o.deadline <= 0):
		err = errors.New("no-hang needs --workers ≥ 1 and positive --duration and --deadline")
	case o.timeout <= 0:
		err = errors.New("--timeout must be positive")
	}
	if err != nil {
		fmt.Fprintln(stderr, "cluster-check:", err)
		return "", nil, errUsage
	}
	for _, u := range append([]string{o.proxy}, o.replicas...) {
		if err := checkLoopback(u); err != nil {
			fmt.Fprintf(stderr, "cluster-check: %s: %v\n", u, err)
			return "", nil, errUsage
		}
	}
	return check, o, nil
}

// errUsage is a command line parseClusterCheck refused (it has said why).
var errUsage = errors.New("usage")

func clusterCheckCmd(ctx context.Context, args []string) int {
	check, o, err := parseClusterCheck(args, os.Stderr)
	if err != nil {
		return usageStatus(err)
	}
	if err := clusterChecks[check](ctx, o, os.Stdout); err != nil {
		fmt.Fprintf(os.Stdout, "cluster-check %s: FAIL: %v\n", check, err)
		return 1
	}
	fmt.Fprintf(os.Stdout, "cluster-check %s: ok\n", check)
	return 0
}

// connectModern connects a 2026-07-28 client to url.
func connectModern(ctx context.Context, url string, timeout time.Duration) (*client.Client, error) {
	return connectEra(ctx, url, timeout, client.EraModern, nil)
}

// connectEra connects a client of era to url, answering elicitation/create with elicit
// (nil: no elicitation capability).
func connectEra(ctx context.Context, url string, timeout time.Duration, era client.Era, elicit client.InputHandler) (*client.Client, error) {
	c, err := client.Connect(ctx, url, client.Config{ClientName: "fastmcp-bench cluster-check", ClientVersion: version(),
		Era: era, RequestTimeout: timeout, Elicitation: elicit})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	return c, nil
}
