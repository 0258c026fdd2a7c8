package loadtest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Literal /proc text as a 2-CPU Linux VM writes it.
const (
	procStatA = `cpu  49295 0 7356 70702 185 0 281 61 0 0
cpu0 24505 0 3659 35486 125 0 129 29 0 0
cpu1 24789 0 3697 35216 60 0 151 31 0 0
intr 4613392 0 9 0 0 0 0 0 0 0 0
ctxt 9816318
btime 1764577647
processes 17611
procs_running 3
procs_blocked 0
softirq 2318283 2 411285 8 147455 0 0 1107 954372 0 804054
`
	// 200 ticks later (1 s on 2 CPUs): 150 busy (user 120, system 25, softirq 5), 10 steal.
	procStatB = `cpu  49415 0 7381 70742 185 0 286 71 0 0
cpu0 24565 0 3671 35506 125 0 131 34 0 0
cpu1 24849 0 3709 35236 60 0 155 36 0 0
intr 4623392 0 9 0 0 0 0 0 0 0 0
`
	loadAvg = "2.59 1.45 0.81 6/118 17610\n"
	// The command name holds a space and a parenthesis.
	pidStatText = "4242 (fastmcp) (bench) S 1000 4242 1000 34816 4242 4194304 5000 120 0 0 250 30 5 2 20 0 8 0 12345 1300000000 9000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n"
)

func TestParseProcStat(t *testing.T) {
	c, cpus, err := parseProcStat([]byte(procStatA))
	require.NoError(t, err)
	assert.Equal(t, 2, cpus)
	assert.Equal(t, cpuTicks{user: 49295, system: 7356, idle: 70702, iowait: 185, softirq: 281, steal: 61}, c)
	assert.Equal(t, uint64(49295+7356+281), c.busy())
	assert.Equal(t, uint64(49295+7356+70702+185+281+61), c.total())

	for _, bad := range []string{"", "intr 1 2\n", "cpu  1 2 3 4\n", "cpu  1 2 x 4 5 6 7 8\n"} {
		_, _, err := parseProcStat([]byte(bad))
		assert.Error(t, err, "%q", bad)
	}
}

func TestParseLoadAvg(t *testing.T) {
	v, err := parseLoadAvg([]byte(loadAvg))
	require.NoError(t, err)
	assert.Equal(t, 2.59, v)
	_, err = parseLoadAvg([]byte(""))
	assert.Error(t, err)
	_, err = parseLoadAvg([]byte("high 1 1"))
	assert.Error(t, err)
}

func TestParsePIDStat(t *testing.T) {
	st, err := parsePIDStat([]byte(pidStatText))
	require.NoError(t, err)
	assert.Equal(t, pidStat{ppid: 1000, utime: 250, stime: 30, cutime: 5, cstime: 2}, st)
	for _, bad := range []string{"4242 no parens S 1 2", "4242 (x) S 1 2 3", "4242 (x) S x 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1"} {
		_, err := parsePIDStat([]byte(bad))
		assert.Error(t, err, "%q", bad)
	}
}

// TestMachineDelta: 150 of 200 ticks busy, 60 of them this run's: others 45% of the CPUs,
// over the limit; 10 ticks of steal is 5%, under its limit.
func TestMachineDelta(t *testing.T) {
	a, b := sample(t, procStatA, 1000), sample(t, procStatB, 1060)
	m, err := machineDelta(a, b, time.Second)
	require.NoError(t, err)
	assert.Equal(t, 2, m.CPUs)
	assert.Equal(t, 2.59, m.Load1)
	assert.InDelta(t, 0.75, m.Busy, 1e-9)
	assert.InDelta(t, 0.30, m.Ours, 1e-9)
	assert.InDelta(t, 0.45, m.Others, 1e-9)
	assert.InDelta(t, 0.05, m.Steal, 1e-9)
	assert.Equal(t, "other processes used 45% of the CPUs (limit 25%)", m.TooBusy())
	assert.Equal(t, "load 2.59 on 2 CPUs, CPU busy 75% (this run 30%, other processes 45%), steal 5.0%", m.String())

	// This run alone kept the CPUs busy: nothing to warn about.
	m, err = machineDelta(a, sample(t, procStatB, 1150), time.Second)
	require.NoError(t, err)
	assert.InDelta(t, 0, m.Others, 1e-9)
	assert.Empty(t, m.TooBusy())

	// Steal alone can make a window meaningless.
	m = &MachineState{Steal: 0.2}
	assert.Equal(t, "the hypervisor stole 20% (limit 10%)", m.TooBusy())

	_, err = machineDelta(a, a, time.Second)
	assert.Error(t, err, "no time elapsed")
}

func sample(t *testing.T, stat string, ours uint64) machineSample {
	t.Helper()
	c, cpus, err := parseProcStat([]byte(stat))
	require.NoError(t, err)
	load, err := parseLoadAvg([]byte(loadAvg))
	require.NoError(t, err)
	return machineSample{cpu: c, cpus: cpus, load1: load, ours: ours}
}

// TestTreeTicks sums this process and its live descendants from a literal /proc tree, and
// leaves other processes out.
func TestTreeTicks(t *testing.T) {
	proc := t.TempDir()
	write := func(pid, stat string) {
		require.NoError(t, os.MkdirAll(filepath.Join(proc, pid), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(proc, pid, "stat"), []byte(stat), 0o644))
	}
	write("10", "10 (bench) S 1 10 1 0 -1 0 0 0 0 0 100 20 7 3 20 0 1 0 1 1 1\n")   // self: 130
	write("11", "11 (serve) S 10 10 1 0 -1 0 0 0 0 0 40 10 0 0 20 0 1 0 1 1 1\n")   // child: 50
	write("12", "12 (taskset x) S 11 10 1 0 -1 0 0 0 0 0 5 1 0 0 20 0 1 0 1 1 1\n") // grandchild: 6
	write("20", "20 (go test) R 1 20 1 0 -1 0 0 0 0 0 900 90 0 0 20 0 1 0 1 1 1\n") // another process
	write("21", "21 (cc1) R 20 20 1 0 -1 0 0 0 0 0 300 30 0 0 20 0 1 0 1 1 1\n")    // its child
	require.NoError(t, os.WriteFile(filepath.Join(proc, "stat"), []byte(procStatA), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(proc, "loadavg"), []byte(loadAvg), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(proc, "self"), 0o755)) // not a pid: skipped

	ticks, err := treeTicks(proc, 10)
	require.NoError(t, err)
	assert.Equal(t, uint64(130+50+6), ticks)

	s, err := readMachine(proc, 10)
	require.NoError(t, err)
	assert.Equal(t, uint64(186), s.ours)
	assert.Equal(t, 2, s.cpus)

	_, err = treeTicks(proc, 99)
	assert.Error(t, err, "a pid that is not there")
	_, err = startMachine(filepath.Join(proc, "missing"), 10).Stop()
	assert.Error(t, err)
}

// TestStartMachine reads this machine's /proc, where there is one: a window in which this
// process used CPU time shows it as this run's.
func TestStartMachine(t *testing.T) {
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skip("no /proc")
	}
	m := StartMachine()
	// Spin until the kernel has charged this process two ticks more, however loaded the
	// machine is (a timed spin might get no CPU at all).
	before, err := ProcessCPU(os.Getpid())
	require.NoError(t, err)
	deadline := time.Now().Add(time.Minute)
	for {
		now, err := ProcessCPU(os.Getpid())
		require.NoError(t, err)
		if now-before >= 20*time.Millisecond {
			break
		}
		require.True(t, time.Now().Before(deadline), "no CPU time charged in a minute")
	}
	st, err := m.Stop()
	require.NoError(t, err)
	assert.Positive(t, st.CPUs)
	assert.Positive(t, st.Ours)
	assert.GreaterOrEqual(t, st.Busy, st.Ours)
	assert.InDelta(t, st.Busy, st.Ours+st.Others, 1e-9)
	assert.Positive(t, st.Window)
}
