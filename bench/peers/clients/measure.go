package main

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// result is the JSON line this program prints; fastmcp-bench's client-worker prints the same shape for
// the fastmcp client (cmd/fastmcp-bench/compare_clients_measure.go), and compare-clients reads both;
// TestResultShape and fastmcp-bench's TestParseClientResult share one literal of it.
type result struct {
	Client     string `json:"client"`
	Module     string `json:"module"`
	Protocol   string `json:"protocol"`
	Sequential phase  `json:"sequential"`
	Concurrent phase  `json:"concurrent"`
}

// phase is one measured window: its calls and what each cost this process.
type phase struct {
	Callers        int     `json:"callers"`
	Calls          int64   `json:"calls"`
	Seconds        float64 `json:"seconds"`
	CallsPerSecond float64 `json:"calls_per_second"`
	NsPerCall      float64 `json:"ns_per_call"`     // wall time of one call (sequential)
	CPUNsPerCall   float64 `json:"cpu_ns_per_call"` // this process's user+system CPU
	AllocsPerCall  float64 `json:"allocs_per_call"` // heap objects (runtime.MemStats.Mallocs)
	BytesPerCall   float64 `json:"bytes_per_call"`  // heap bytes (runtime.MemStats.TotalAlloc)
}

type measureOptions struct {
	warmup, duration time.Duration
	callers          int
}

// measure runs the sequential phase, then the concurrent one.
func measure(call func(context.Context) error, o measureOptions) (result, error) {
	var r result
	var err error
	if r.Sequential, err = runPhase(call, 1, o.warmup, o.duration); err != nil {
		return r, err
	}
	r.Concurrent, err = runPhase(call, o.callers, o.warmup, o.duration)
	return r, err
}

// snapshot is the process's counters at one instant.
type snapshot struct {
	at            time.Time
	cpu           time.Duration
	mallocs, heap uint64
}

func take() snapshot {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return snapshot{at: time.Now(), cpu: cpu, mallocs: ms.Mallocs, heap: ms.TotalAlloc}
}

// runPhase has callers goroutines call in a loop: warmup unmeasured, then duration measured
// between two snapshots. The first failed call ends it with that error.
func runPhase(call func(context.Context) error, callers int, warmup, duration time.Duration) (phase, error) {
	// One deadline for the phase's calls, not one a call (which would allocate in the
	// measured calls): a call that hangs fails when it passes.
	ctx, cancel := context.WithTimeout(context.Background(), warmup+duration+phaseGrace)
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
	time.Sleep(warmup) // the window is timed, not the goroutines: a late start only shortens warm-up
	runtime.GC()
	n0, s0 := calls.Load(), take()
	time.Sleep(duration)
	// The window ends with a completed call, so that a machine too busy to finish one in
	// duration still gives figures (a call that never ends fails at the phase's deadline).
	for calls.Load() == n0 && !stop.Load() {
		time.Sleep(time.Millisecond)
	}
	n1, s1 := calls.Load(), take()
	stop.Store(true)
	wg.Wait()
	if firstErr != nil {
		return phase{}, firstErr
	}
	n := float64(n1 - n0)
	secs := s1.at.Sub(s0.at).Seconds()
	p := phase{Callers: callers, Calls: n1 - n0, Seconds: secs}
	if n > 0 {
		p.CallsPerSecond = n / secs
		p.NsPerCall = float64(callers) * secs * 1e9 / n
		p.CPUNsPerCall = float64(s1.cpu-s0.cpu) / n
		p.AllocsPerCall = float64(s1.mallocs-s0.mallocs) / n
		p.BytesPerCall = float64(s1.heap-s0.heap) / n
	}
	return p, nil
}

// phaseGrace is how long past its measured window a phase's calls may run before they fail.
const phaseGrace = 30 * time.Second
