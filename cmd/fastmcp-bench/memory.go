package main

import (
	"encoding/json"
	"net/http"
	"runtime"
	"runtime/metrics"
)

// goMemory is the Go runtime's memory in use, what `serve --pprof` answers on /debug/memory.
type goMemory struct {
	// Heap is the heap's spans in use: live objects and the free space inside their spans
	// (runtime.MemStats.HeapInuse).
	Heap uint64 `json:"heap_inuse_bytes"`
	// Stacks is the goroutine stacks' memory (MemStats.StackInuse).
	Stacks uint64 `json:"stacks_inuse_bytes"`
}

// memoryMetrics are the runtime/metrics that goMemory sums.
var memoryMetrics = []string{
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/heap/stacks:bytes",
}

// readGoMemory collects garbage first, so that only what is live counts: the figure then
// tracks what the open streams hold, not when the last GC ran.
func readGoMemory() goMemory {
	runtime.GC()
	s := make([]metrics.Sample, len(memoryMetrics))
	for i, name := range memoryMetrics {
		s[i].Name = name
	}
	metrics.Read(s)
	v := func(i int) uint64 {
		if s[i].Value.Kind() != metrics.KindUint64 {
			return 0 // unsupported by this runtime
		}
		return s[i].Value.Uint64()
	}
	return goMemory{Heap: v(0) + v(1), Stacks: v(2)}
}

// serveMemory answers GET /debug/memory with readGoMemory as JSON.
func serveMemory(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		http.Error(w, "GET only", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(readGoMemory())
}
