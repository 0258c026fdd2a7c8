package gateway

import "sync/atomic"

// CallStats counts the requests forwarded to one backend (tools/call, prompts/get,
// resources/read, completion/complete; not the Gateway's own health checks and catalog
// reads) since New, for metrics: those that reached the backend by outcome, and those
// refused before reaching it by reason. A retry that resumes a parked call is not a new call.
type CallStats struct {
	// OK: a result came back.
	OK int64
	// Errors: the backend answered with a JSON-RPC error (passed to the caller as it was).
	Errors int64
	// Malformed: an answer the Gateway could not read or carry, or past MaxResponseBytes.
	Malformed int64
	// Timeouts: past Backend.Timeout or the client's RequestTimeout.
	Timeouts int64
	// Failures: the transport failed (the connection broke, the process exited, a 5xx).
	Failures int64
	// Cancelled: the caller left (cancelled, or its own deadline) before the answer.
	Cancelled int64

	// Down: refused because the backend was not connected.
	Down int64
	// BreakerOpen: refused because its circuit breaker was open (or half-open, its probe in
	// flight).
	BreakerOpen int64
	// OverConcurrency: refused past Backend.MaxConcurrent.
	OverConcurrency int64
	// OverRate: refused past Backend.Rate and Burst.
	OverRate int64
}

type callCounters struct {
	byOutcome                                    [numOutcomes]atomic.Int64
	down, breakerOpen, overConcurrency, overRate atomic.Int64
}

func (c *callCounters) count(o outcome) { c.byOutcome[o].Add(1) }

func (c *callCounters) snapshot() CallStats {
	n := func(o outcome) int64 { return c.byOutcome[o].Load() }
	return CallStats{
		OK: n(outcomeOK), Errors: n(outcomeError), Malformed: n(outcomeMalformed), Timeouts: n(outcomeTimeout),
		Failures: n(outcomeFailed), Cancelled: n(outcomeCancelled),
		Down: c.down.Load(), BreakerOpen: c.breakerOpen.Load(), OverConcurrency: c.overConcurrency.Load(), OverRate: c.overRate.Load(),
	}
}

// refuseDown is the error of a request for a backend that is not connected, counted.
func (b *backend) refuseDown() error {
	b.limits.stats.down.Add(1)
	return unavailable(b.spec.Name)
}

// Ready reports whether the Gateway can serve anything: at least one backend is up with
// its circuit breaker not open. A readiness check built on it takes a replica out of
// rotation only when none of its backends can answer; Status tells which can.
func (g *Gateway) Ready() bool {
	for _, b := range g.backends {
		if st := b.status(); st.Up && st.Breaker != BreakerOpen {
			return true
		}
	}
	return false
}
