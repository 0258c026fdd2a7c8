//go:build !linux

package loadtest

import "time"

// sleeper is time.Sleep where no precise timer is available: the pacer then hands requests
// out up to sleepEarly ahead, in bursts.
type sleeper struct{}

const sleepEarly = 2 * time.Millisecond

func newSleeper() (*sleeper, error) { return &sleeper{}, nil }

func (*sleeper) sleep(d time.Duration) { time.Sleep(d) }

func (*sleeper) close() {}
