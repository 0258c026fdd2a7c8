package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

// compare --cluster N: tools/call echo through HAProxy in front of 1, 2 … N replicas of
// fastmcp-bench serve, beside HAProxy in front of bench/peers' bare fasthttp server (the
// proxy's own ceiling on this machine) and one replica dialled directly (what the proxy
// costs), in interleaved rounds, 2026-07-28 requests.

// maxClusterReplicas bounds --cluster: each replica is a process on this machine.
const maxClusterReplicas = 16

// Names of the cluster comparison's rows besides "N replicas".
const (
	nameClusterCeiling = "haproxy → bare-fasthttp"
	nameClusterDirect  = "1 replica, no proxy"
)

// checkClusterFlags refuses what --cluster does not combine with: it has endpoints and a
// scenario of its own.
func checkClusterFlags(fs *flag.FlagSet, o *compareOptions, pos []string) error {
	if o.cluster < 0 || o.cluster > maxClusterReplicas {
		return fmt.Errorf("--cluster %d: give the most replicas to measure, 1 to %d", o.cluster, maxClusterReplicas)
	}
	if len(pos) > 0 && !(len(pos) == 1 && pos[0] == "throughput") {
		return fmt.Errorf("--cluster measures throughput only (got %q)", pos)
	}
	var clash []string
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "peers", "target", "tls", "metrics", "baseline", "stacks", "pin", "generator", "rate", "dialects",
			"server-cpuprofile", "goals", "html":
			clash = append(clash, "--"+f.Name)
		}
	})
	if len(clash) > 0 {
		return fmt.Errorf("--cluster has endpoints of its own (HAProxy, the replicas, bare fasthttp): not with %s", strings.Join(clash, ", "))
	}
	return nil
}

// clusterRow is one measured endpoint: a frontend of the proxy, or a replica directly.
type clusterRow struct {
	name     string
	replicas int // 0 for the ceiling
	url      string
	samples  []float64
}

// haproxyBackend is one frontend of the generated config and the servers behind it.
type haproxyBackend struct {
	name    string
	port    int
	servers []string // HOST:PORT
}

// haproxyClusterConfig is the config compare --cluster runs: round-robin, no affinity, no
// health checks (nothing fails during the rounds), timeouts above the replicas' keep-alive
// interval, one frontend per backend.
func haproxyClusterConfig(backends []haproxyBackend) string {
	var b strings.Builder
	b.WriteString(`global
	maxconn 4096

defaults
	mode http
	timeout connect 2s
	timeout client 60s
	timeout server 60s
	timeout http-keep-alive 60s
`)
	for i, be := range backends {
		fmt.Fprintf(&b, "\nfrontend f%d\n\tbind 127.0.0.1:%d\n\tdefault_backend b%d\n", i, be.port, i)
		fmt.Fprintf(&b, "\nbackend b%d\n\tbalance roundrobin\n", i)
		for j, s := range be.servers {
			fmt.Fprintf(&b, "\tserver s%d %s\n", j+1, s)
		}
	}
	return b.String()
}

func compareCluster(ctx context.Context, o *compareOptions) int {
	haproxy, err := exec.LookPath("haproxy")
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare --cluster: haproxy is not on PATH (Debian: apt-get install -y haproxy)")
		return 1
	}
	live := newLiveLine(os.Stderr)
	rows, stop, err := startCluster(ctx, o, haproxy, live)
	defer stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare --cluster:", err)
		return 1
	}
	live.printf("fastmcp-bench compare --cluster %d: %d rounds × %s, %d connections, GOMAXPROCS %d, %d CPUs",
		o.cluster, o.rounds, o.duration, o.connections, runtime.GOMAXPROCS(0), runtime.NumCPU())
	failed := false
	for round := range o.rounds {
		order := slices.Clone(rows)
		if round%2 == 1 {
			slices.Reverse(order)
		}
		for _, r := range order {
			if ctx.Err() != nil {
				return 1
			}
			res, err := loadtest.Throughput(ctx, loadtest.ThroughputConfig{
				Target:      loadtest.Target{URL: r.url, Name: r.name, Dialect: loadtest.Dialect2026},
				Connections: o.connections, Duration: o.duration, Warmup: o.warmup, Progress: live.update})
			if err != nil {
				live.printf("%s round %d: %v", r.name, round+1, err)
				failed = true
				continue
			}
			if res.Errors.Total() > 0 {
				live.printf("%s round %d: ERRORS %s", r.name, round+1, res.Errors)
				failed = true
			}
			r.samples = append(r.samples, res.RPS)
			live.printf("round %d/%d  %-26s %.0f req/s", round+1, o.rounds, r.name, res.RPS)
		}
	}
	printClusterTable(os.Stdout, rows)
	if !compareClusterFanout(ctx, o, live) {
		failed = true
	}
	if failed {
		return 1
	}
	return 0
}

// startCluster starts the bare backend, o.cluster replicas and one HAProxy with a frontend
// for the ceiling and one for each replica count; stop ends them all (also on error).
func startCluster(ctx context.Context, o *compareOptions, haproxy string, live *liveLine) (rows []*clusterRow, stop func(), err error) {
	var children []*child
	var proxy *exec.Cmd
	var dir string
	stop = func() {
		if proxy != nil {
			_ = proxy.Process.Kill()
			_ = proxy.Wait()
		}
		for _, c := range children {
			c.stop()
		}
		if dir != "" {
			_ = os.RemoveAll(dir)
		}
	}
	bareBin, err := buildPeerProgram(ctx, o.peersDir, "bare", live)
	if err != nil {
		return nil, stop, err
	}
	bare, err := startChild(ctx, nameCeiling, -1, bareBin, "-addr", "127.0.0.1:0")
	if err != nil {
		return nil, stop, err
	}
	children = append(children, bare)
	bin, err := self()
	if err != nil {
		return nil, stop, err
	}
	var replicas []string
	for i := range o.cluster {
		c, err := startChild(ctx, fmt.Sprintf("replica %d", i+1), -1, bin, "serve", "--addr", "127.0.0.1:0",
			"--fixtures", "demo", "--tasks-store", "off")
		if err != nil {
			return nil, stop, err
		}
		children = append(children, c)
		replicas = append(replicas, hostPort(c.url))
		if i == 0 {
			rows = append(rows, &clusterRow{name: nameClusterDirect, replicas: 1, url: c.url})
		}
	}
	backends := []haproxyBackend{{name: nameClusterCeiling, servers: []string{hostPort(bare.url)}}}
	for k := 1; k <= o.cluster; k++ {
		backends = append(backends, haproxyBackend{name: replicaName(k), servers: replicas[:k]})
	}
	for i := range backends {
		if backends[i].port, err = freePort(); err != nil {
			return nil, stop, err
		}
	}
	if dir, err = os.MkdirTemp("", "fastmcp-bench-haproxy-"); err != nil {
		return nil, stop, err
	}
	cfg := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(cfg, []byte(haproxyClusterConfig(backends)), 0o600); err != nil {
		return nil, stop, err
	}
	var logs lockedTail
	proxy = exec.Command(haproxy, "-db", "-f", cfg)
	proxy.Stdout, proxy.Stderr = &logs, &logs
	if err := proxy.Start(); err != nil {
		proxy = nil
		return nil, stop, fmt.Errorf("haproxy: %w", err)
	}
	for i, be := range backends {
		url := fmt.Sprintf("http://127.0.0.1:%d/mcp", be.port)
		if err := waitProxy(ctx, url); err != nil {
			return nil, stop, fmt.Errorf("haproxy frontend %s: %w (haproxy said: %s)", be.name, err, logs.String())
		}
		row := &clusterRow{name: be.name, replicas: len(be.servers), url: url}
		if i == 0 {
			row.replicas = 0
		}
		rows = append(rows, row)
	}
	return rows, stop, nil
}

// waitProxy waits (10 s) for a proxy frontend to forward a check request.
func waitProxy(ctx context.Context, url string) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := loadtest.Check(ctx, loadtest.Target{URL: url, Dialect: loadtest.Dialect2026})
		if err == nil || time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		time.Sleep(100 * time.Millisecond) // a poll interval, bounded by the deadline above
	}
}

func replicaName(k int) string {
	if k == 1 {
		return "haproxy → 1 replica"
	}
	return "haproxy → " + strconv.Itoa(k) + " replicas"
}

// hostPort is the HOST:PORT of an endpoint URL.
func hostPort(url string) string {
	rest := strings.TrimPrefix(strings.TrimPrefix(url, "http://"), "https://")
	host, _, _ := strings.Cut(rest, "/")
	return host
}

// printClusterTable prints the median of each row, its spread, and its ratios to the
// ceiling and to one replica through the proxy.
func printClusterTable(w io.Writer, rows []*clusterRow) {
	var ceiling, one float64
	for _, r := range rows {
		m := loadtest.Median(r.samples)
		switch {
		case r.replicas == 0:
			ceiling = m
		case r.name == replicaName(1):
			one = m
		}
	}
	fmt.Fprintln(w, "\nrequests per second through HAProxy (tools/call echo, 2026-07-28; medians of interleaved rounds)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "endpoint\treplicas\treq/s\tmin–max\tof ceiling\tvs 1 replica\t")
	for _, r := range rows {
		m := loadtest.Median(r.samples)
		reps := strconv.Itoa(r.replicas)
		if r.replicas == 0 {
			reps = "-"
		}
		spread := "-"
		if len(r.samples) > 0 {
			spread = fmt.Sprintf("%.0f–%.0f", slices.Min(r.samples), slices.Max(r.samples))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", r.name, reps, formatRPS(m, len(r.samples)), spread, ratio(m, ceiling, "%.0f%%", 100), ratio(m, one, "%.2f×", 1))
	}
	_ = tw.Flush()
}

func formatRPS(v float64, n int) string {
	if n == 0 {
		return "not measured"
	}
	return fmt.Sprintf("%.0f", v)
}

func ratio(v, base float64, format string, scale float64) string {
	if v == 0 || base == 0 {
		return "-"
	}
	return fmt.Sprintf(format, v/base*scale)
}

// lockedTail keeps the last 2 KiB HAProxy wrote, for an error message.
type lockedTail struct {
	mu  sync.Mutex
	buf []byte
}

func (l *lockedTail) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	if len(l.buf) > 2048 {
		l.buf = l.buf[len(l.buf)-2048:]
	}
	return len(p), nil
}

func (l *lockedTail) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) == 0 {
		return "nothing"
	}
	return strings.TrimSpace(string(l.buf))
}
