package loadtest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Thresholds above which [MachineState.TooBusy] reports the machine too busy for a window's
// figures to mean much. Other processes' CPU time is taken from the generator and the server
// (a rate or a tail latency then measures the machine's load, not the code); the hypervisor's
// steal is CPU time this VM was promised and did not get.
const (
	// MaxOtherShare is the share of all CPUs' time other processes may use: a quarter.
	MaxOtherShare = 0.25
	// MaxStealShare is the share of all CPUs' time the hypervisor may steal: a tenth.
	MaxStealShare = 0.10
)

// MachineState is what the machine did during a window, read from /proc (Linux): its load
// and how its CPU time was shared. Shares are fractions of all CPUs' time in the window
// (CPUs × wall time, as /proc/stat counts it).
type MachineState struct {
	CPUs   int           `json:"cpus"`
	Window time.Duration `json:"window_ns"`
	// Load1 is the 1-minute load average at the end of the window (runnable and
	// uninterruptible tasks, this run's included).
	Load1 float64 `json:"load1"`
	// Busy is every process's CPU time (user, nice, system, interrupts); Ours the part of
	// this process and its descendants (the generator, an embedded or child server); Others
	// the rest: other engineers' tests, daemons.
	Busy   float64 `json:"busy"`
	Ours   float64 `json:"ours"`
	Others float64 `json:"others"`
	// Steal is the time the hypervisor ran other guests while this one had work.
	Steal float64 `json:"steal"`
}

// String is one line: "load 2.42 on 2 CPUs, CPU busy 97% (this run 60%, other processes
// 37%), steal 0.4%".
func (m *MachineState) String() string {
	return fmt.Sprintf("load %.2f on %d CPUs, CPU busy %.0f%% (this run %.0f%%, other processes %.0f%%), steal %.1f%%",
		m.Load1, m.CPUs, 100*m.Busy, 100*m.Ours, 100*m.Others, 100*m.Steal)
}

// TooBusy returns why the machine was too busy for the window's figures to mean much, or ""
// when it was not.
func (m *MachineState) TooBusy() string {
	var why []string
	if m.Others > MaxOtherShare {
		why = append(why, fmt.Sprintf("other processes used %.0f%% of the CPUs (limit %.0f%%)", 100*m.Others, 100*MaxOtherShare))
	}
	if m.Steal > MaxStealShare {
		why = append(why, fmt.Sprintf("the hypervisor stole %.0f%% (limit %.0f%%)", 100*m.Steal, 100*MaxStealShare))
	}
	return strings.Join(why, " and ")
}

// MachineMeter measures the machine over a window: [StartMachine] reads /proc, Stop reads it
// again and returns the difference.
type MachineMeter struct {
	proc  string
	self  int
	t0    time.Time
	start machineSample
	err   error
}

// StartMachine starts a window. Where /proc cannot be read, Stop returns the error.
func StartMachine() *MachineMeter { return startMachine("/proc", os.Getpid()) }

func startMachine(proc string, self int) *MachineMeter {
	m := &MachineMeter{proc: proc, self: self, t0: time.Now()}
	m.start, m.err = readMachine(proc, self)
	return m
}

// Stop ends the window.
func (m *MachineMeter) Stop() (*MachineState, error) {
	if m.err != nil {
		return nil, m.err
	}
	end, err := readMachine(m.proc, m.self)
	if err != nil {
		return nil, err
	}
	return machineDelta(m.start, end, time.Since(m.t0))
}

// machineSample is one reading of the counters, in clock ticks (USER_HZ).
type machineSample struct {
	cpu   cpuTicks
	cpus  int
	load1 float64
	ours  uint64
}

// cpuTicks are the aggregate "cpu" line of /proc/stat. Guest time is already inside user and
// nice, so it is not added again.
type cpuTicks struct {
	user, nice, system, idle, iowait, irq, softirq, steal uint64
}

func (c cpuTicks) busy() uint64  { return c.user + c.nice + c.system + c.irq + c.softirq }
func (c cpuTicks) total() uint64 { return c.busy() + c.idle + c.iowait + c.steal }

func machineDelta(a, b machineSample, window time.Duration) (*MachineState, error) {
	total := float64(b.cpu.total() - a.cpu.total())
	if b.cpu.total() <= a.cpu.total() {
		return nil, errors.New("loadtest: no CPU time elapsed in the window")
	}
	share := func(x, y uint64) float64 {
		if y < x {
			return 0 // a counter that went backwards (a descendant reaped mid-read)
		}
		return float64(y-x) / total
	}
	m := &MachineState{
		CPUs:   b.cpus,
		Window: window,
		Load1:  b.load1,
		Busy:   share(a.cpu.busy(), b.cpu.busy()),
		Ours:   share(a.ours, b.ours),
		Steal:  share(a.cpu.steal, b.cpu.steal),
	}
	// Ours and Busy are sampled by different counters; rounding can put Ours above Busy.
	m.Ours = min(m.Ours, m.Busy)
	m.Others = m.Busy - m.Ours
	return m, nil
}

func readMachine(proc string, self int) (machineSample, error) {
	var s machineSample
	b, err := os.ReadFile(filepath.Join(proc, "stat"))
	if err != nil {
		return s, fmt.Errorf("loadtest: machine state: %w", err)
	}
	if s.cpu, s.cpus, err = parseProcStat(b); err != nil {
		return s, err
	}
	if b, err = os.ReadFile(filepath.Join(proc, "loadavg")); err != nil {
		return s, fmt.Errorf("loadtest: machine state: %w", err)
	}
	if s.load1, err = parseLoadAvg(b); err != nil {
		return s, err
	}
	s.ours, err = treeTicks(proc, self)
	return s, err
}

// parseProcStat reads the aggregate cpu line of /proc/stat and counts the cpuN lines.
func parseProcStat(b []byte) (cpuTicks, int, error) {
	var c cpuTicks
	cpus, found := 0, false
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		f := strings.Fields(string(line))
		switch {
		case len(f) == 0 || !strings.HasPrefix(f[0], "cpu"):
			continue
		case f[0] != "cpu":
			cpus++
			continue
		case len(f) < 9: // cpu user nice system idle iowait irq softirq steal [guest guest_nice]
			return c, 0, errors.New("loadtest: short cpu line in /proc/stat (no steal column)")
		}
		var v [8]uint64
		for i := range v {
			n, err := strconv.ParseUint(f[i+1], 10, 64)
			if err != nil {
				return c, 0, fmt.Errorf("loadtest: /proc/stat cpu line: %w", err)
			}
			v[i] = n
		}
		c = cpuTicks{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]}
		found = true
	}
	if !found {
		return c, 0, errors.New("loadtest: no cpu line in /proc/stat")
	}
	return c, max(cpus, 1), nil
}

// parseLoadAvg reads the 1-minute load average, the first field of /proc/loadavg.
func parseLoadAvg(b []byte) (float64, error) {
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, errors.New("loadtest: empty /proc/loadavg")
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0, fmt.Errorf("loadtest: /proc/loadavg: %w", err)
	}
	return v, nil
}

// pidStat is what the bench reads of /proc/PID/stat, times in clock ticks. Children's times
// (cutime, cstime) count the descendants already reaped.
type pidStat struct {
	ppid                         int
	utime, stime, cutime, cstime uint64
}

// parsePIDStat reads /proc/PID/stat. The command name, field 2, is in parentheses and may
// hold spaces and parentheses: fields are counted from after its last ')'.
func parsePIDStat(b []byte) (pidStat, error) {
	var p pidStat
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return p, errors.New("loadtest: malformed /proc stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 15 { // state is field 3 (f[0]); ppid 4; utime, stime, cutime, cstime 14 to 17
		return p, errors.New("loadtest: short /proc stat")
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return p, fmt.Errorf("loadtest: /proc stat ppid: %w", err)
	}
	var t [4]uint64
	for k := range t {
		// cutime and cstime are signed in proc(5); they are never negative in practice.
		n, err := strconv.ParseInt(f[11+k], 10, 64)
		if err != nil || n < 0 {
			return p, fmt.Errorf("loadtest: /proc stat times: %q", f[11+k])
		}
		t[k] = uint64(n)
	}
	return pidStat{ppid, t[0], t[1], t[2], t[3]}, nil
}

// treeTicks is the CPU time of self and every live descendant, reaped children included:
// the part of the machine's busy time that this run caused.
func treeTicks(proc string, self int) (uint64, error) {
	entries, err := os.ReadDir(proc)
	if err != nil {
		return 0, fmt.Errorf("loadtest: machine state: %w", err)
	}
	stats := map[int]pidStat{}
	children := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(proc, e.Name(), "stat"))
		if err != nil {
			continue // exited since the listing
		}
		st, err := parsePIDStat(b)
		if err != nil {
			continue
		}
		stats[pid] = st
		children[st.ppid] = append(children[st.ppid], pid)
	}
	if _, ok := stats[self]; !ok {
		return 0, fmt.Errorf("loadtest: machine state: no %s/%d/stat", proc, self)
	}
	var sum uint64
	for queue := []int{self}; len(queue) > 0; queue = queue[1:] {
		st := stats[queue[0]]
		sum += st.utime + st.stime + st.cutime + st.cstime
		queue = append(queue, children[queue[0]]...)
	}
	return sum, nil
}
