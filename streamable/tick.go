package streamable

import (
	"sync/atomic"
	"time"
)

// tickInterval is the period of a server's coarse tick.
const tickInterval = 10 * time.Millisecond

// ticker is a coarse broadcast clock: every interval it closes the channel C returned and
// makes a new one, so any number of waiting requests can select on it at the cost of one
// atomic load each, with no timer per request.
type ticker struct {
	ch   atomic.Pointer[chan struct{}]
	now  atomic.Int64 // Unix nanoseconds at the last tick: a clock that costs one load
	stop chan struct{}
	done chan struct{}
	// onTick, if set before run, runs after each tick with the time.
	onTick func(now int64)
	// finished, if set before run, ends run after a tick where it reports true.
	finished func() bool
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
		case now := <-tk.C:
			t.now.Store(now.UnixNano())
			next := make(chan struct{})
			close(*t.ch.Swap(&next))
			if t.onTick != nil {
				t.onTick(now.UnixNano())
			}
			if t.finished != nil && t.finished() {
				return
			}
		}
	}
}

// Stop ends the ticker, if it has not ended by itself, and waits for it.
func (t *ticker) Stop() {
	close(t.stop)
	<-t.done
}
