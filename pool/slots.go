package pool

import (
	"context"
	"sync"
	"sync/atomic"
)

// Slots is a bounded counter for long-lived holders, separate from the
// workers: transports count open subscription streams with it, and those
// that share an [Executor] share its count. Get it with [Executor.Slots].
// It is safe for concurrent use.
type Slots struct {
	max int

	mu     sync.Mutex
	used   int
	closed bool
}

// Acquire takes a slot until ctx ends or release is called, whichever comes
// first; calling release more than once is harmless. With a context that
// never ends (context.Background), only release frees the slot.
//
// Acquire returns [ErrNoSlot] when all [Config.MaxSlots] slots are held,
// [ErrClosed] after [Executor.Close], and ctx's error if ctx has ended.
func (s *Slots) Acquire(ctx context.Context) (release func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	switch {
	case s.closed:
		err = ErrClosed
	case s.used >= s.max:
		err = ErrNoSlot
	default:
		s.used++
	}
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	h := &slotHold{s: s}
	if ctx.Done() != nil {
		h.stop = context.AfterFunc(ctx, h.expire)
	}
	return h.release, nil
}

// InUse returns the number of slots held.
func (s *Slots) InUse() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.used
}

// Cap returns the number of slots.
func (s *Slots) Cap() int { return s.max }

func (s *Slots) put() {
	s.mu.Lock()
	s.used--
	s.mu.Unlock()
}

func (s *Slots) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}

// slotHold is one acquired slot.
type slotHold struct {
	s    *Slots
	done atomic.Bool
	stop func() bool // set before release is handed out; nil without a watch
}

// expire runs when the holder's context ends.
func (h *slotHold) expire() {
	if !h.done.Swap(true) {
		h.s.put()
	}
}

// release is the function Acquire returns.
func (h *slotHold) release() {
	if h.done.Swap(true) {
		return
	}
	if h.stop != nil {
		h.stop()
	}
	h.s.put()
}
