package gateway

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// A backend's limits hold across all of its entries, one count per backend, and refuse
// with a JSON-RPC error naming it. The core's component wrappers (fastmcp.Concurrency,
// RateLimit, Timeout) count per component and answer a refused tool call as an isError
// result, so the Gateway keeps its own.

// limits are one backend's call limits and breaker, and its call counters.
type limits struct {
	name     string
	timeout  time.Duration // 0: the client's RequestTimeout alone
	maxCalls int64         // 0: unlimited
	rate     *bucket       // nil: unlimited
	breaker  *breaker

	inFlight atomic.Int64
	stats    callCounters
}

func newLimits(b *backend) *limits {
	spec := &b.spec
	now := func() time.Time { return b.g.now() }
	l := &limits{name: spec.Name, timeout: spec.Timeout, maxCalls: int64(spec.MaxConcurrent)}
	if spec.Rate > 0 {
		burst := spec.Burst
		if burst == 0 {
			burst = max(1, int(math.Ceil(spec.Rate)))
		}
		l.rate = &bucket{rate: spec.Rate, burst: float64(burst), now: now}
	}
	threshold, cooldown := spec.BreakerFailures, spec.BreakerCooldown
	setDefault(&threshold, DefaultBreakerFailures)
	setDefault(&cooldown, DefaultBreakerCooldown)
	l.breaker = newBreaker(threshold, cooldown, now, func(from, to BreakerState) {
		b.log.Warn("gateway: backend circuit breaker", "from", from, "to", to)
	})
	return l
}

// guard runs send, one request forwarded to the backend, under the backend's limits: the
// concurrency cap, the breaker and the rate limit admit it or refuse it at once with their
// error; Timeout bounds it; its outcome is counted and told to the breaker. A refused call
// never reaches send.
func guard[T any](l *limits, ctx context.Context, send func(context.Context) (T, error)) (T, error) {
	var zero T
	if l.maxCalls > 0 {
		if n := l.inFlight.Add(1); n > l.maxCalls {
			l.inFlight.Add(-1)
			l.stats.overConcurrency.Add(1)
			return zero, tooManyCalls(l.name)
		}
	} else {
		l.inFlight.Add(1)
	}
	defer l.inFlight.Add(-1)
	ok, probe := l.breaker.allow()
	if !ok {
		l.stats.breakerOpen.Add(1)
		return zero, unavailable(l.name)
	}
	if l.rate != nil && !l.rate.take() {
		l.breaker.released(probe)
		l.stats.overRate.Add(1)
		return zero, overRate(l.name)
	}
	cctx := ctx
	if l.timeout > 0 {
		var cancel context.CancelFunc
		cctx, cancel = context.WithTimeout(ctx, l.timeout)
		defer cancel()
	}
	v, err := send(cctx)
	switch o := classify(ctx, err); o {
	case outcomeCancelled:
		l.breaker.released(probe)
		l.stats.count(o)
	case outcomeTimeout, outcomeFailed:
		l.breaker.failedCall(probe)
		l.stats.count(o)
	default:
		l.breaker.succeeded(probe)
		l.stats.count(o)
	}
	return v, err
}

// outcome is how a call that reached the backend ended.
type outcome int

const (
	outcomeOK        outcome = iota // a result
	outcomeError                    // the backend's JSON-RPC error (or an HTTP answer below 500)
	outcomeMalformed                // an answer the Gateway could not read or carry
	outcomeTimeout                  // past Timeout or the client's RequestTimeout
	outcomeFailed                   // the transport failed: nothing came back
	outcomeCancelled                // the caller left first
	numOutcomes
)

// classify tells how a forwarded call ended (parent is the caller's context), as
// forwardError answers it.
func classify(parent context.Context, err error) outcome {
	if err == nil {
		return outcomeOK // before the errors.As targets, which escape: no allocation on success
	}
	var (
		rpc     *client.Error
		own     *fastmcp.Error
		he      *client.HTTPError
		refused *refusedError
	)
	switch {
	case parent.Err() != nil:
		return outcomeCancelled
	case errors.As(err, &rpc) || errors.As(err, &own) || errors.As(err, &refused):
		return outcomeError // the backend answered: not a failure its breaker counts
	case errors.Is(err, client.ErrResponseTooLarge) || errors.Is(err, client.ErrLineTooLong) || errors.Is(err, client.ErrMalformed):
		return outcomeMalformed
	case errors.Is(err, context.DeadlineExceeded):
		return outcomeTimeout
	case errors.As(err, &he) && he.Status < 500:
		return outcomeError
	}
	return outcomeFailed
}

// bucket is a token bucket: rate tokens a second, at most burst held (full at first), one
// taken per call.
type bucket struct {
	rate, burst float64
	now         func() time.Time

	mu      sync.Mutex
	started bool
	tokens  float64
	last    time.Time
}

func (k *bucket) take() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := k.now()
	switch {
	case !k.started:
		k.started, k.tokens, k.last = true, k.burst, now
	case now.After(k.last):
		k.tokens = min(k.burst, k.tokens+now.Sub(k.last).Seconds()*k.rate)
		k.last = now
	}
	if k.tokens < 1 {
		return false
	}
	k.tokens--
	return true
}

// The refusals of a backend's limits: -32603 with data {"backend":"NAME"}, as the other
// backend errors.
func tooManyCalls(name string) *fastmcp.Error {
	return backendError(name, "has too many calls in flight")
}
func overRate(name string) *fastmcp.Error { return backendError(name, "is over its rate limit") }

// checkLimits refuses a backend's negative (or not-a-number) limits.
func (b *Backend) checkLimits() error {
	if b.Timeout < 0 || b.MaxConcurrent < 0 || !(b.Rate >= 0) || math.IsInf(b.Rate, 1) || b.Burst < 0 ||
		b.BreakerFailures < 0 || b.BreakerCooldown < 0 {
		return fmt.Errorf("%w: backend %q: a limit is negative (or Rate not a finite number)", ErrInvalidConfig, b.Name)
	}
	if b.Burst > 0 && b.Rate == 0 {
		return fmt.Errorf("%w: backend %q: Burst without Rate", ErrInvalidConfig, b.Name)
	}
	return nil
}

// requestTimeout is the client's RequestTimeout for this backend: raised to Timeout when
// that is longer, so that Timeout bounds the calls.
func (l *limits) requestTimeout(rt time.Duration) time.Duration {
	if l.timeout == 0 {
		return rt
	}
	if rt == 0 {
		rt = client.DefaultRequestTimeout
	}
	return max(rt, l.timeout)
}

// report fills st's breaker state and call counters.
func (l *limits) report(st *Status) {
	st.Breaker, st.BreakerOpened = l.breaker.snapshot()
	st.InFlight = int(l.inFlight.Load())
	st.Calls = l.stats.snapshot()
}
