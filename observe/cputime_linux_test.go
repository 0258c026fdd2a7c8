//go:build linux

package observe

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// threadCPU returns the CPU time the calling OS thread has used. Under other load it still
// counts only this thread's work, unlike the wall time a benchmark reports.
func threadCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	const rusageThread = 1 // RUSAGE_THREAD
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportThreadCPU runs loop on a locked thread and reports its CPU time per op as cpu-ns/op.
func reportThreadCPU(b *testing.B, loop func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := threadCPU(b)
	loop()
	b.ReportMetric(float64(threadCPU(b)-start)/float64(b.N), "cpu-ns/op")
}
