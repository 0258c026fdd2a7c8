package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

// The CPU goal of compare --gateway is judged at one request rate for both servers. A
// server's CPU per call falls as its rate rises (each wake-up, read and write serves more
// calls): on this kind of machine a fastmcp server spends about twice as much per call at
// 30k req/s as at its 130k maximum. The gateway's own maximum is a fraction of the backend's,
// so comparing the two maxima charges the gateway for the backend's batching. Here the
// gateway in front of the backend and the backend directly are each driven open loop at the
// same rate, 80% of the gateway's maximum (close to it, without a backlog), on the same
// connections, in interleaved rounds.
const gatewayCPURateFraction = 0.8

// sameRateCPU is the gateway and the backend directly, each at one rate in one revision.
type sameRateCPU struct {
	dialect      loadtest.Dialect
	rate         float64
	conns        int
	gw, direct   []float64 // CPU per call (ns), a run each round
	busy, rounds int
}

// measureSameRateCPU runs, for each revision with both rows, o.rounds pairs of open-loop
// runs at gatewayCPURateFraction of the gateway's median req/s at the most connections.
func measureSameRateCPU(ctx context.Context, o *compareOptions, rows []*gatewayRow, live *liveLine) (out []*sameRateCPU, ok bool) {
	ok = true
	top := slices.Max(o.gatewayConnections)
	for _, d := range []loadtest.Dialect{loadtest.DialectLegacy, loadtest.Dialect2026} {
		gw, direct := rowNamed(rows, nameGwHTTP, d), rowNamed(rows, nameGwDirect, d)
		if gw == nil || direct == nil || medianOf(gw, top) == 0 || gw.target.PID == 0 || direct.target.PID == 0 {
			continue
		}
		s := &sameRateCPU{dialect: d, rate: gatewayCPURateFraction * medianOf(gw, top), conns: top}
		for round := range o.rounds {
			pair := []*gatewayRow{gw, direct}
			if round%2 == 1 {
				slices.Reverse(pair)
			}
			for _, r := range pair {
				if ctx.Err() != nil {
					return out, false
				}
				cpu, busy, good := measureAtRate(ctx, o, r, s, live)
				ok = ok && good
				if busy {
					s.busy++
				}
				if cpu > 0 && r == gw {
					s.gw = append(s.gw, float64(cpu))
				} else if cpu > 0 {
					s.direct = append(s.direct, float64(cpu))
				}
			}
			s.rounds++
		}
		out = append(out, s)
	}
	return out, ok
}

// measureAtRate is one open-loop run of r at s's rate: the server's CPU per call (0 when
// /proc gave none), whether the machine was too busy, and whether the run was clean.
func measureAtRate(ctx context.Context, o *compareOptions, r *gatewayRow, s *sameRateCPU, live *liveLine) (time.Duration, bool, bool) {
	meter := loadtest.StartMachine()
	res, err := loadtest.Latency(ctx, loadtest.LatencyConfig{Target: r.target, Rate: s.rate, Connections: s.conns,
		Duration: o.duration, Warmup: o.warmup, Progress: live.update})
	machine, _ := stopMachine(meter)
	if err != nil {
		live.printf("%s at %.0f req/s: %v", r.target.Name, s.rate, err)
		return 0, false, false
	}
	if res.Errors.Total() > 0 {
		live.printf("%s at %.0f req/s: ERRORS %s", r.target.Name, s.rate, res.Errors)
		return 0, false, false
	}
	// A backlog (requests due but never sent: a busy machine, the gateway's rate near its
	// maximum) leaves the CPU per answered call what it is; it is shown, not refused.
	backlog := ""
	if res.Backlog > 0 {
		backlog = fmt.Sprintf(", backlog %d", res.Backlog)
	}
	live.printf("same rate  %-37s %.0f req/s  CPU/call %s%s%s", r.target.Name, res.Achieved, roundCPU(float64(res.ServerCPU)), backlog, machineSuffix(machine))
	return res.ServerCPU, machine != nil && machine.TooBusy() != "", true
}

// printSameRateCPU prints the same-rate figures and judges the CPU goal on them, beside the
// ratio of the two maxima for reference.
func printSameRateCPU(w io.Writer, rows []*gatewayRow, same []*sameRateCPU) {
	judged := false
	for _, s := range same {
		if len(s.gw) == 0 || len(s.direct) == 0 {
			continue
		}
		judged = true
		gw, direct := loadtest.Median(s.gw), loadtest.Median(s.direct)
		fmt.Fprintf(w, "Goal: gateway → fastmcp CPU per call %s against the backend's own %s, both at %.0f req/s open loop on %d connections (%s, medians of %d rounds, %d busy runs): %.2f× (goal ≤ %.0f×): %s\n",
			roundCPU(gw), roundCPU(direct), s.rate, s.conns, s.dialect, s.rounds, s.busy, gw/direct, goalGatewayCPUTimes, verdict(gw/direct <= goalGatewayCPUTimes))
		if g, d := cpuMedian(rowNamed(rows, nameGwHTTP, s.dialect)), cpuMedian(rowNamed(rows, nameGwDirect, s.dialect)); g > 0 && d > 0 {
			fmt.Fprintf(w, "      each at its own maximum (closed loop, the table's CPU/call): %s against %s, %.2f× (the backend's maximum rate is several times the gateway's)\n",
				roundCPU(g), roundCPU(d), g/d)
		}
	}
	if !judged {
		fmt.Fprintf(w, "Goal: gateway CPU per call ≤ %.0f× a fastmcp server's: not judged (no CPU figures at one rate)\n", goalGatewayCPUTimes)
	}
}
