//go:build linux

package loadtest

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// sleeper waits with microsecond precision without holding a processor: a Linux timerfd
// read through Go's network poller. (time.Sleep rounds short waits up to a millisecond when
// the runtime is idle, which would add up to a millisecond to open-loop latencies; spinning
// would starve the poller on a one-CPU generator.)
type sleeper struct {
	fd int
	f  *os.File
}

// sleepEarly is how early the pacer hands out requests: those due within it go at once.
const sleepEarly = 50 * time.Microsecond

func newSleeper() (*sleeper, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return &sleeper{fd: fd, f: os.NewFile(uintptr(fd), "timerfd")}, nil
}

// sleep waits d (d > 0).
func (s *sleeper) sleep(d time.Duration) {
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	if err := unix.TimerfdSettime(s.fd, 0, &spec, nil); err != nil {
		time.Sleep(d)
		return
	}
	var buf [8]byte
	if _, err := s.f.Read(buf[:]); err != nil {
		time.Sleep(d)
	}
}

func (s *sleeper) close() { _ = s.f.Close() }
