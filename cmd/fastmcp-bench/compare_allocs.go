package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// heapCounters are a Go server's cumulative allocation counters (runtime.MemStats.Mallocs
// and TotalAlloc), as its heap profile reports them: read before and after a run they give
// the server's allocations per request, the figure testing.AllocsPerRun gives in process.
type heapCounters struct{ objects, bytes uint64 }

// readHeapCounters reads the counters from the "# Mallocs = N" and "# TotalAlloc = N" lines
// that net/http/pprof's heap profile ends with (debug=1), under the pprof index base.
func readHeapCounters(base string) (heapCounters, error) {
	var h heapCounters
	if base == "" {
		return h, errors.New("no pprof endpoint")
	}
	cl := http.Client{Timeout: 30 * time.Second}
	resp, err := cl.Get(base + "heap?debug=1")
	if err != nil {
		return h, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return h, fmt.Errorf("%sheap: %s", base, resp.Status)
	}
	return parseHeapCounters(resp.Body)
}

// parseHeapCounters scans a debug=1 heap profile for the MemStats counters.
func parseHeapCounters(r io.Reader) (heapCounters, error) {
	var h heapCounters
	var gotObjects, gotBytes bool
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		name, v, ok := strings.Cut(sc.Text(), " = ")
		if !ok {
			continue
		}
		switch name {
		case "# Mallocs":
			h.objects, gotObjects = parseCounter(v)
		case "# TotalAlloc":
			h.bytes, gotBytes = parseCounter(v)
		}
	}
	if err := sc.Err(); err != nil {
		return h, err
	}
	if !gotObjects || !gotBytes {
		return h, errors.New("the heap profile has no # Mallocs and # TotalAlloc lines")
	}
	return h, nil
}

func parseCounter(s string) (uint64, bool) {
	v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	return v, err == nil
}

// allocMeter measures a server's allocations over one run. Each reading allocates in the
// server too (the profile it writes): a second reading right after the run measures that
// cost, which is taken off, so that only the requests' allocations remain.
type allocMeter struct {
	base   string
	before heapCounters
	err    error
}

// startAllocs takes the reading before a run (the server idle).
func startAllocs(base string) *allocMeter {
	m := &allocMeter{base: base}
	m.before, m.err = readHeapCounters(base)
	return m
}

// perRequest reads the counters after the run (the load stopped) and returns the objects
// and bytes allocated per answered request.
func (m *allocMeter) perRequest(answered int64) (objects, bytes float64, err error) {
	if m.err != nil {
		return 0, 0, m.err
	}
	if answered <= 0 {
		return 0, 0, errors.New("no request answered")
	}
	after, err := readHeapCounters(m.base)
	if err != nil {
		return 0, 0, err
	}
	again, err := readHeapCounters(m.base)
	if err != nil {
		return 0, 0, err
	}
	return allocsPerRequest(m.before, after, again, answered)
}

// allocsPerRequest is (after − before − the cost of one reading, again − after) / answered.
func allocsPerRequest(before, after, again heapCounters, answered int64) (objects, bytes float64, err error) {
	if after.objects < before.objects || again.objects < after.objects || after.bytes < before.bytes || again.bytes < after.bytes {
		return 0, 0, errors.New("the allocation counters went backwards: the server restarted?")
	}
	objs := float64(after.objects-before.objects) - float64(again.objects-after.objects)
	b := float64(after.bytes-before.bytes) - float64(again.bytes-after.bytes)
	return max(objs, 0) / float64(answered), max(b, 0) / float64(answered), nil
}
