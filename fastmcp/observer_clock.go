package fastmcp

import (
	"sync/atomic"
	"time"
)

// observerClockRebase is how long observerNow extends one wall-clock reading with the
// monotonic clock before it reads the wall clock again (so that a step of the wall clock
// reaches the timestamps within that time).
const observerClockRebase = time.Second

// observerBase is the last wall-clock reading of observerNow.
var observerBase atomic.Pointer[time.Time]

func init() {
	t := time.Now()
	observerBase.Store(&t)
}

// observerNow returns the time as time.Now does, wall and monotonic, from a read of the
// monotonic clock alone: on virtual machines the wall clock can cost three times as much,
// and an Observer reads the time twice per request.
func observerNow() time.Time {
	base := observerBase.Load()
	d := time.Since(*base) // the monotonic clock only
	if d < observerClockRebase {
		return base.Add(d)
	}
	t := time.Now()
	observerBase.Store(&t)
	return t
}
