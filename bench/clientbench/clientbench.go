// Package clientbench measures an MCP client in the process it runs in: a sequential phase
// (one caller: wall time, CPU time and heap allocations per call) and a concurrent one
// (callers sharing the client: calls per second, CPU and allocations per call).
// fastmcp-bench's client-worker measures the fastmcp client with it, and the nested module
// bench/peers its clients program the peer SDKs', so that `fastmcp-bench compare-clients`
// compares figures taken the same way. It uses the standard library alone, which the peers'
// module builds it with.
package clientbench

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Result is one client's measurement, printed as a JSON line by the program that measured it
// and read by compare-clients. Measure fills the phases; the caller names the client.
type Result struct {
	Client     string `json:"client"`
	Module     string `json:"module"`
	Protocol   string `json:"protocol"`
	Sequential Phase  `json:"sequential"`
	Concurrent Phase  `json:"concurrent"`
}

// Phase is one measured window: its calls and what each cost the client's process.
type Phase struct {
	Callers        int     `json:"callers"`
	Calls          int64   `json:"calls"`
	Seconds        float64 `json:"seconds"`
	CallsPerSecond float64 `json:"calls_per_second"`
	NsPerCall      float64 `json:"ns_per_call"`     // wall time of one call
	CPUNsPerCall   float64 `json:"cpu_ns_per_call"` // the process's user+system CPU
	AllocsPerCall  float64 `json:"allocs_per_call"` // heap objects (runtime.MemStats.Mallocs)
	BytesPerCall   float64 `json:"bytes_per_call"`  // heap bytes (runtime.MemStats.TotalAlloc)
}

// Measure runs the sequential phase (one caller), then the concurrent one (callers
// sharing the client), each warmup unmeasured and then duration measured.
func Measure(call func(context.Context) error, callers int, warmup, duration time.Duration) (Result, error) {
	var r Result
	var err error
	if r.Sequential, err = runPhase(call, 1, warmup, duration); err != nil {
		return r, err
	}
	r.Concurrent, err = runPhase(call, callers, warmup, duration)
	return r, err
}

// processCounters are the process's clock, CPU time and heap counters at one instant.
type processCounters struct {
	at            time.Time
	cpu           time.Duration
	mallocs, heap uint64
}

func readProcessCounters() processCounters {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return processCounters{at: time.Now(), cpu: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		mallocs: ms.Mallocs, heap: ms.TotalAlloc}
}

// runPhase has callers goroutines call in a loop; the window measured is the time
// between two readings of the counters, taken warmup and warmup+duration after the start.
// The first failed call ends the phase with its error.
func runPhase(call func(context.Context) error, callers int, warmup, duration time.Duration) (Phase, error) {
	// One deadline for the phase's calls, not one a call (which would allocate in the
	// measured calls): a call that hangs fails when it passes.
	ctx, cancel := context.WithTimeout(context.Background(), warmup+duration+PhaseGrace)
	defer cancel()
	var calls atomic.Int64
	var stop atomic.Bool
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				if err := call(ctx); err != nil {
					once.Do(func() { firstErr = err; stop.Store(true) })
					return
				}
				calls.Add(1)
			}
		}()
	}
	// A timed window, not a wait for the callers: the counters are read at its two ends.
	time.Sleep(warmup)
	runtime.GC()
	n0, c0 := calls.Load(), readProcessCounters()
	time.Sleep(duration)
	// The window ends with a completed call, so that a machine too busy to finish one in
	// duration still gives figures (a call that never ends fails at the phase's deadline).
	for calls.Load() == n0 && !stop.Load() {
		time.Sleep(time.Millisecond)
	}
	n1, c1 := calls.Load(), readProcessCounters()
	stop.Store(true)
	wg.Wait()
	if firstErr != nil {
		return Phase{}, firstErr
	}
	return phaseFigures(callers, n1-n0, c0, c1), nil
}

// phaseFigures turns a window's counters into per-call figures.
func phaseFigures(callers int, calls int64, c0, c1 processCounters) Phase {
	secs := c1.at.Sub(c0.at).Seconds()
	p := Phase{Callers: callers, Calls: calls, Seconds: secs}
	if calls > 0 && secs > 0 {
		n := float64(calls)
		p.CallsPerSecond = n / secs
		p.NsPerCall = float64(callers) * secs * 1e9 / n
		p.CPUNsPerCall = float64(c1.cpu-c0.cpu) / n
		p.AllocsPerCall = float64(c1.mallocs-c0.mallocs) / n
		p.BytesPerCall = float64(c1.heap-c0.heap) / n
	}
	return p
}

// PhaseGrace is how long past its measured window a phase's calls may run before they fail.
const PhaseGrace = 30 * time.Second
