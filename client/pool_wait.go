package client

import (
	"errors"
	"time"
)

// A request that finds every slot taken waits in the pool's FIFO queue. release hands its
// slot to the first waiter directly; one timer per pool, armed for the earliest deadline
// among the waiters, times them out. A wait then costs no timer of its own (a time.Timer
// is three allocations and a timer-heap entry per call when 32 callers share four
// connections) and no three-way select.

// slotWaiter is one request waiting for a slot. Its channel (buffer 1) receives exactly one
// answer once it leaves the queue by a handoff (nil) or a timeout (errPoolWait), and none
// when the waiter removed itself.
type slotWaiter struct {
	ch         chan error
	deadline   time.Time
	prev, next *slotWaiter
	queued     bool
}

// newWaiter takes a waiter from the pool's own free list (p.mu held). Not a sync.Pool: a
// channel made in one synctest bubble must not be used from another.
func (p *pool) newWaiter(deadline time.Time) *slotWaiter {
	var w *slotWaiter
	if n := len(p.freeWaiters); n > 0 {
		w = p.freeWaiters[n-1]
		p.freeWaiters[n-1] = nil
		p.freeWaiters = p.freeWaiters[:n-1]
	} else {
		w = &slotWaiter{ch: make(chan error, 1)}
	}
	w.deadline = deadline
	return w
}

// waitQueue is an intrusive doubly linked FIFO of waiters, guarded by pool.mu.
type waitQueue struct {
	head, tail *slotWaiter
	n          int
}

func (q *waitQueue) push(w *slotWaiter) {
	w.prev, w.next, w.queued = q.tail, nil, true
	if q.tail == nil {
		q.head = w
	} else {
		q.tail.next = w
	}
	q.tail = w
	q.n++
}

func (q *waitQueue) remove(w *slotWaiter) {
	if w.prev == nil {
		q.head = w.next
	} else {
		w.prev.next = w.next
	}
	if w.next == nil {
		q.tail = w.prev
	} else {
		w.next.prev = w.prev
	}
	w.prev, w.next, w.queued = nil, nil, false
	q.n--
}

// armWaitTimer makes the pool's timer fire no later than d (p.mu held).
func (p *pool) armWaitTimer(d time.Time) {
	if p.waitTimer == nil {
		p.waitTimer = time.AfterFunc(time.Until(d), p.expireWaiters)
		p.waitAt = d
		return
	}
	if p.waitAt.IsZero() || d.Before(p.waitAt) {
		p.waitTimer.Reset(time.Until(d))
		p.waitAt = d
	}
}

// expireWaiters times out the waiters whose deadline has passed and rearms the timer for
// the earliest one left.
func (p *pool) expireWaiters() {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.waitAt = time.Time{}
	var next time.Time
	for w := p.waiters.head; w != nil; {
		after := w.next
		if !now.Before(w.deadline) {
			p.waiters.remove(w)
			w.ch <- errPoolWait
		} else if next.IsZero() || w.deadline.Before(next) {
			next = w.deadline
		}
		w = after
	}
	if !next.IsZero() {
		p.waitTimer.Reset(time.Until(next))
		p.waitAt = next
	}
}

// errPoolWait is a waiter's answer when its deadline passed in the queue.
var errPoolWait = errors.New("client: pool wait timed out")
