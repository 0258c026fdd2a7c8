package loadtest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// userHZ is the unit of the CPU times in /proc/PID/stat: fixed at 100 per second for user
// space on Linux.
const userHZ = 100

// ProcessCPU reads the CPU time (user plus system) a local process has used, from
// /proc/PID/stat, in steps of 10 ms. Divided by the requests served meanwhile it gives the
// server's CPU cost per request, which other load on the machine disturbs far less than a
// rate does.
func ProcessCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, fmt.Errorf("loadtest: server CPU: %w", err)
	}
	st, err := parsePIDStat(b)
	if err != nil {
		return 0, err
	}
	return time.Duration(st.utime+st.stime) * (time.Second / userHZ), nil
}

// ProcessTreeCPU is ProcessCPU of pid and of every live descendant (found through
// /proc/PID/task/TID/children): a server with the processes it runs, such as a gateway and
// its stdio backends. A descendant that exits meanwhile is counted until its exit.
func ProcessTreeCPU(pid int) (time.Duration, error) {
	total, err := ProcessCPU(pid)
	if err != nil {
		return 0, err
	}
	for _, c := range childPIDs(pid) {
		if d, err := ProcessTreeCPU(c); err == nil {
			total += d
		}
	}
	return total, nil
}

// childPIDs lists pid's children, from each of its threads' children file.
func childPIDs(pid int) []int {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, _ := os.ReadDir(dir)
	var out []int
	for _, t := range tasks {
		b, _ := os.ReadFile(dir + "/" + t.Name() + "/children")
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// cpuMeter reads a process's CPU time at the start and at the end of a window.
type cpuMeter struct {
	mu           sync.Mutex
	start, end   time.Duration
	tStart, tEnd time.Time
	started, ok  bool
	stop         func()
}

// meterCPU schedules the readings of pid's CPU time at from and to (no readings if pid is 0),
// with its descendants' when tree is set.
func meterCPU(pid int, tree bool, from, to time.Time) *cpuMeter {
	m := &cpuMeter{stop: func() {}}
	if pid <= 0 {
		return m
	}
	read := ProcessCPU
	if tree {
		read = ProcessTreeCPU
	}
	startRead, endRead := make(chan struct{}), make(chan struct{})
	t1 := time.AfterFunc(time.Until(from), func() {
		v, err := read(pid)
		m.mu.Lock()
		m.start, m.tStart, m.started = v, time.Now(), err == nil
		m.mu.Unlock()
		close(startRead)
	})
	readEnd := func() {
		v, err := read(pid)
		m.mu.Lock()
		m.end, m.tEnd = v, time.Now()
		m.ok = err == nil && m.started
		m.mu.Unlock()
		close(endRead)
	}
	t2 := time.AfterFunc(time.Until(to), readEnd)
	m.stop = func() {
		if t1.Stop() { // stopped before the window opened: no readings
			t2.Stop()
			return
		}
		<-startRead
		// The load ended before the end reading ran: it stopped early, or the timer is late
		// on a busy machine (it can run after the load's own deadline). Read the end now.
		if t2.Stop() {
			readEnd()
		}
		<-endRead
	}
	return m
}

// result returns the CPU used per request and the cores used on average.
func (m *cpuMeter) result(requests int64) (perRequest time.Duration, cores float64) {
	m.stop()
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.ok || requests == 0 || !m.tEnd.After(m.tStart) {
		return 0, 0
	}
	used := m.end - m.start
	return used / time.Duration(requests), used.Seconds() / m.tEnd.Sub(m.tStart).Seconds()
}
