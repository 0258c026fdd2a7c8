package storetest

import (
	"sync"
	"time"

	"github.com/fastmcp-go/fastmcp/tasks"
)

// Clock is the time of a store under test. Now is the store's current time; Advance moves
// it forward by d, so that leases, NotBefore and TTLs run out without a sleep.
type Clock interface {
	Now() time.Time
	Advance(d time.Duration)
}

// Timed pairs a store with its clock: the value open returns to [Run].
func Timed(s tasks.Store, c Clock) tasks.Store { return timed{s, c} }

type timed struct {
	tasks.Store
	Clock
}

// FakeClock is a Clock that moves only when told. It is safe for concurrent use.
type FakeClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewFakeClock returns a clock at a fixed instant, in UTC at microsecond precision (what
// every store keeps).
func NewFakeClock() *FakeClock {
	return &FakeClock{now: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)}
}

// Now returns the clock's time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
