package loadtest

import (
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// When the load stops before the end reading's timer has run (on a busy machine that timer
// can run after the load's own deadline), the end is read then, so the figure is not lost.
func TestCPUMeterEndsWithTheLoad(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pid := os.Getpid()
		m := meterCPU(pid, time.Now(), time.Now().Add(time.Second))
		time.Sleep(10 * time.Millisecond) // the start reading runs
		before, err := ProcessCPU(pid)
		require.NoError(t, err)
		for used := time.Duration(0); used < 20*time.Millisecond; { // CPU time, in 10 ms steps
			now, err := ProcessCPU(pid)
			require.NoError(t, err)
			used = now - before
		}
		perRequest, cores := m.result(1)
		assert.Positive(t, perRequest)
		assert.Positive(t, cores)
	})
}

// Stopped before its window opens, the meter reads nothing.
func TestCPUMeterStoppedBeforeTheWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := meterCPU(os.Getpid(), time.Now().Add(time.Second), time.Now().Add(2*time.Second))
		perRequest, cores := m.result(1)
		assert.Zero(t, perRequest)
		assert.Zero(t, cores)
	})
}
