package loadtest

import (
	"os"
	"os/exec"
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
		m := meterCPU(pid, false, time.Now(), time.Now().Add(time.Second))
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
		m := meterCPU(os.Getpid(), false, time.Now().Add(time.Second), time.Now().Add(2*time.Second))
		perRequest, cores := m.result(1)
		assert.Zero(t, perRequest)
		assert.Zero(t, cores)
	})
}

// ProcessTreeCPU counts a process's children: with a child burning CPU, the tree's time is
// at least this process's and the child's, each read before it.
func TestProcessTreeCPU(t *testing.T) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	require.NoError(t, err)
	defer null.Close()
	burner := exec.Command("yes")
	burner.Stdout = null
	require.NoError(t, burner.Start())
	defer func() { _ = burner.Process.Kill(); _ = burner.Wait() }()
	var child time.Duration
	deadline := time.Now().Add(20 * time.Second)
	for child < 50*time.Millisecond {
		require.True(t, time.Now().Before(deadline), "the child used no CPU")
		child, err = ProcessCPU(burner.Process.Pid)
		require.NoError(t, err)
		time.Sleep(10 * time.Millisecond) // waiting for another process's CPU time: no signal to wait on
	}
	self, err := ProcessCPU(os.Getpid())
	require.NoError(t, err)
	tree, err := ProcessTreeCPU(os.Getpid())
	require.NoError(t, err)
	assert.GreaterOrEqual(t, tree, self+child)
}
