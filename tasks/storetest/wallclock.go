package storetest

import (
	"sync"
	"time"
)

// WallClock is a Clock on the real time, moved forward by the sum of its Advances: for a
// store that other processes use on the real clock at the same time (see [RunProcesses]).
// It is safe for concurrent use.
type WallClock struct {
	mu     sync.Mutex
	offset time.Duration
}

// Now returns the real time plus the clock's advance, in UTC.
func (c *WallClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset).UTC()
}

// Advance moves the clock forward by d.
func (c *WallClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += d
}
