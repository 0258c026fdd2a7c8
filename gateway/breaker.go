package gateway

import (
	"sync"
	"time"
)

// BreakerState is the state of a backend's circuit breaker, as Status reports it.
type BreakerState string

// The states of a circuit breaker.
const (
	// BreakerClosed: calls go to the backend.
	BreakerClosed BreakerState = "closed"
	// BreakerOpen: Backend.BreakerFailures calls in a row failed on the transport or timed
	// out; calls are refused at once, without reaching the backend, until BreakerCooldown
	// has passed.
	BreakerOpen BreakerState = "open"
	// BreakerHalfOpen: the cooldown has passed (or the backend was reconnected); one call,
	// the probe, goes to the backend, the others are refused as while open. The probe's
	// success closes the breaker, its failure opens it again.
	BreakerHalfOpen BreakerState = "half-open"
)

// breaker is one backend's circuit breaker. The probe is a real call rather than the health
// check: a backend whose calls hang may well answer pings.
type breaker struct {
	threshold int
	cooldown  time.Duration
	now       func() time.Time
	onChange  func(from, to BreakerState)

	mu       sync.Mutex
	state    BreakerState
	failures int       // in a row, while closed
	openedAt time.Time // while open
	probing  bool      // the half-open probe is in flight
	opened   int64     // times the breaker opened
}

func newBreaker(threshold int, cooldown time.Duration, now func() time.Time, onChange func(from, to BreakerState)) *breaker {
	return &breaker{threshold: threshold, cooldown: cooldown, now: now, onChange: onChange, state: BreakerClosed}
}

// allow reports whether a call may go to the backend; probe is set for the half-open
// probe, whose verdict (or release) must follow.
func (br *breaker) allow() (ok, probe bool) {
	br.mu.Lock()
	defer br.mu.Unlock()
	if br.state == BreakerOpen && br.now().Sub(br.openedAt) >= br.cooldown {
		br.set(BreakerHalfOpen)
	}
	switch br.state {
	case BreakerClosed:
		return true, false
	case BreakerHalfOpen:
		if br.probing {
			return false, false
		}
		br.probing = true
		return true, true
	}
	return false, false
}

// succeeded records a call the backend answered (even with an error): it closes the breaker
// when it was the probe, and ends a run of failures.
func (br *breaker) succeeded(probe bool) {
	br.mu.Lock()
	defer br.mu.Unlock()
	br.failures = 0
	if probe {
		br.probing = false
		br.set(BreakerClosed)
	}
}

// failedCall records a call that failed on the transport or timed out: the probe's failure,
// or the threshold-th in a row, opens the breaker.
func (br *breaker) failedCall(probe bool) {
	br.mu.Lock()
	defer br.mu.Unlock()
	if probe {
		br.probing = false
		br.open()
		return
	}
	if br.state != BreakerClosed {
		return // a call admitted before the breaker opened
	}
	br.failures++
	if br.failures >= br.threshold {
		br.open()
	}
}

// released records a call that gave no verdict (its caller left, or a later limit refused
// it): a probe's turn passes to the next call.
func (br *breaker) released(probe bool) {
	if !probe {
		return
	}
	br.mu.Lock()
	br.probing = false
	br.mu.Unlock()
}

// reconnected makes an open breaker half-open: the backend's new connection deserves a
// probe now rather than after the rest of the cooldown.
func (br *breaker) reconnected() {
	br.mu.Lock()
	defer br.mu.Unlock()
	if br.state == BreakerOpen {
		br.set(BreakerHalfOpen)
	}
}

func (br *breaker) snapshot() (BreakerState, int64) {
	br.mu.Lock()
	defer br.mu.Unlock()
	if br.state == BreakerOpen && br.now().Sub(br.openedAt) >= br.cooldown {
		return BreakerHalfOpen, br.opened // what the next call will find
	}
	return br.state, br.opened
}

func (br *breaker) open() {
	br.failures = 0
	br.openedAt = br.now()
	br.opened++
	br.set(BreakerOpen)
}

func (br *breaker) set(to BreakerState) {
	if from := br.state; from != to {
		br.state = to
		if br.onChange != nil {
			br.onChange(from, to)
		}
	}
}
