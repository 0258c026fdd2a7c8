package streamable

import (
	"sync/atomic"
	"time"
)

// tickInterval is the period of a server's coarse tick.
const tickInterval = 10 * time.Millisecond

// ticker is a coarse broadcast clock: every interval it closes the channel C returned and
// makes a new one, so any number of waiting requests can select on it at the cost of one
// atomic load each, with no timer per request. It also enforces the connections'
// deadlines (deadline.go, measured by BenchmarkListenerDeadlines); one pass over 10,000
// connections is BenchmarkTickPass.
type ticker struct {
	ch   atomic.Pointer[chan struct{}]
	now  atomic.Int64 // Unix nanoseconds at the last tick: a clock that costs one load
	stop chan struct{}
	done chan struct{}
	// onTick, if set before run, runs after each tick with the time that every bound timed
	// from the clock has surely reached (see advance).
	onTick func(now int64)
	// finished, if set before run, ends run after a tick where it reports true.
	finished func() bool

	// hold, set before run, is the longest bound timed from the clock. last is the time of
	// the last tick; lag the most the clock went staler than coarseSlack allows in the last
	// hold, until lagUntil (see advance). The tick's goroutine alone uses them.
	hold, last, lag, lagUntil int64
}

func newTicker() *ticker {
	t := &ticker{stop: make(chan struct{}), done: make(chan struct{})}
	ch := make(chan struct{})
	t.ch.Store(&ch)
	return t
}

// C returns the channel closed at the next tick.
func (t *ticker) C() <-chan struct{} { return *t.ch.Load() }

// run ticks until Stop.
func (t *ticker) run() {
	defer close(t.done)
	tk := time.NewTicker(tickInterval)
	defer tk.Stop()
	for {
		select {
		case <-t.stop:
			return
		case <-tk.C:
			// The time now, not the ticker's: a tick that runs late must not make the clock
			// later still.
			if t.advance(time.Now().UnixNano()) {
				return
			}
		}
	}
}

// advance is one tick at now; it reports whether run is finished.
//
// Between two ticks the clock stands still, so a bound timed from it (see deadlines) starts
// up to the gap between the ticks early. coarseSlack covers a gap of one interval; a tick
// that runs late (a starved process) leaves a longer one, and the bounds started in it
// could end early by the excess. So the tick remembers the largest excess for as long as
// such a bound can run (hold), and judges bounds at now minus it: late, never early.
func (t *ticker) advance(now int64) (finished bool) {
	if t.last != 0 {
		if excess := now - t.last - coarseSlack; excess > 0 {
			t.lag = max(t.lag, excess)
			t.lagUntil = now + t.hold + coarseSlack
		}
	}
	if now > t.lagUntil {
		t.lag = 0
	}
	t.last = now
	t.now.Store(now)
	next := make(chan struct{})
	close(*t.ch.Swap(&next))
	if t.onTick != nil {
		t.onTick(now - t.lag)
	}
	return t.finished != nil && t.finished()
}

// Stop ends the ticker, if it has not ended by itself, and waits for it.
func (t *ticker) Stop() {
	close(t.stop)
	<-t.done
}
