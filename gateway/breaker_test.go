package gateway

import (
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeClock is the limits' clock in tests: it moves only when told.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestBreakerStates walks the breaker through its states: failures in a row open it (an
// answer between them starts the count over), it refuses until the cooldown, then lets one
// probe through; a probe that gives no verdict passes its turn on, a failed one opens it
// again, a successful one closes it.
func TestBreakerStates(t *testing.T) {
	clock := newFakeClock()
	var changes []string
	br := newBreaker(3, 10*time.Second, clock.now, func(from, to BreakerState) { changes = append(changes, string(from)+">"+string(to)) })
	state := func() BreakerState { s, _ := br.snapshot(); return s }
	admit := func() bool {
		ok, probe := br.allow()
		require.True(t, ok)
		return probe
	}

	br.failedCall(admit())
	br.failedCall(admit())
	br.succeeded(admit()) // an answer: the run of failures ends
	br.failedCall(admit())
	br.failedCall(admit())
	require.Equal(t, BreakerClosed, state())
	br.failedCall(admit())
	require.Equal(t, BreakerOpen, state())

	ok, _ := br.allow()
	assert.False(t, ok, "open: refused")
	clock.advance(10*time.Second - time.Nanosecond)
	ok, _ = br.allow()
	assert.False(t, ok, "open until the cooldown has passed")
	clock.advance(time.Nanosecond)
	assert.Equal(t, BreakerHalfOpen, state())

	probe := admit()
	require.True(t, probe, "the first call after the cooldown is the probe")
	ok, _ = br.allow()
	assert.False(t, ok, "half-open: refused while the probe is in flight")
	br.released(probe) // the probe's caller left: no verdict
	assert.Equal(t, BreakerHalfOpen, state())

	probe = admit()
	require.True(t, probe, "the next call is the probe")
	br.failedCall(probe)
	assert.Equal(t, BreakerOpen, state(), "a failed probe opens the breaker again")
	ok, _ = br.allow()
	assert.False(t, ok)

	clock.advance(10 * time.Second)
	probe = admit()
	br.succeeded(probe)
	assert.Equal(t, BreakerClosed, state())
	assert.False(t, admit(), "closed: no probe")

	// Calls admitted while closed that fail after the breaker opened change nothing.
	inFlight := []bool{admit(), admit(), admit(), admit()}
	for _, probe := range inFlight {
		br.failedCall(probe)
	}
	assert.Equal(t, BreakerOpen, state())
	br.reconnected()
	assert.Equal(t, BreakerHalfOpen, state(), "a new connection: probe at once")
	_, opened := br.snapshot()
	assert.Equal(t, int64(3), opened)
	assert.Equal(t, []string{
		"closed>open", "open>half-open", "half-open>open", "open>half-open", "half-open>closed",
		"closed>open", "open>half-open",
	}, changes)
}

// TestBucket: Burst calls at once, then Rate a second; what builds up while idle is capped
// at Burst.
func TestBucket(t *testing.T) {
	clock := newFakeClock()
	k := &bucket{rate: 2, burst: 3, now: clock.now}
	for i := range 3 {
		assert.True(t, k.take(), "burst call %d", i)
	}
	assert.False(t, k.take(), "past the burst")
	clock.advance(500 * time.Millisecond)
	assert.True(t, k.take(), "one token in half a second at 2/s")
	assert.False(t, k.take())
	clock.advance(time.Hour)
	for i := range 3 {
		assert.True(t, k.take(), "after idling, call %d", i)
	}
	assert.False(t, k.take(), "idling builds up no more than the burst")
	clock.advance(-time.Second) // a clock that steps back refills nothing
	assert.False(t, k.take())
}

// TestBackendLimitsChecked: negative limits, a rate that is not a finite number and a
// burst without a rate are refused by New.
func TestBackendLimitsChecked(t *testing.T) {
	for _, b := range []Backend{
		{Timeout: -1}, {MaxConcurrent: -1}, {Rate: -1}, {Burst: -1, Rate: 1}, {Burst: 2},
		{Rate: math.NaN()}, {Rate: math.Inf(1)}, {BreakerFailures: -1}, {BreakerCooldown: -1},
	} {
		b.Name, b.URL = "a", "http://127.0.0.1:1/mcp"
		_, err := New(newBackendServer("gw", nil), Config{Backends: []Backend{b}})
		assert.ErrorIs(t, err, ErrInvalidConfig, "%+v", b)
	}
}
