package storetest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks"
)

// Worker is a store's test binary re-executed as a worker process on a shared database, for
// [RunProcesses]. With the environment variable Env set to a mode and Env+"_AT" to where the
// database is, [Worker.Main] runs the worker instead of the tests.
//
// Modes: "drain" prints "ready", waits for a line on stdin, then claims and completes tasks
// until none is runnable, printing each id; "hold" claims one task, prints its id and
// blocks until killed.
type Worker struct {
	// Env names the environment variable that makes the process a worker.
	Env string
	// Open opens the worker's store on the database at where (a file, a DSN).
	Open func(ctx context.Context, where string) (tasks.Store, error)
}

// workerLease is the lease a worker takes: long enough never to run out on its own.
const workerLease = time.Minute

// Main runs the worker when this process is one, and reports whether it was; a failing
// worker exits 1. Call it first in TestMain and return when it reports true.
func (w Worker) Main() bool {
	mode := os.Getenv(w.Env)
	if mode == "" {
		return false
	}
	if err := w.run(mode, os.Getenv(w.Env+"_AT")); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
	return true
}

func (w Worker) run(mode, where string) error {
	ctx := context.Background()
	s, err := w.Open(ctx, where)
	if err != nil {
		return err
	}
	defer s.Close()
	worker := workerName(os.Getpid())
	if mode == "hold" {
		t, err := s.ClaimNext(ctx, worker, workerLease)
		if err != nil || t == nil {
			return fmt.Errorf("claim: %v %v", t, err)
		}
		fmt.Println(t.ID)
		_, err = io.ReadAll(os.Stdin) // until killed
		return err
	}
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		return err
	}
	for {
		t, err := s.ClaimNext(ctx, worker, workerLease)
		if err != nil || t == nil {
			return err
		}
		t.Status = tasks.StatusCompleted
		if err := s.Put(ctx, t, t.LeaseGen); err != nil {
			return err
		}
		fmt.Println(t.ID)
	}
}

// workerName is the lease owner of the worker process pid.
func workerName(pid int) string { return fmt.Sprintf("pid-%d", pid) }

// worker is a started worker process: its stdin, and its stdout line by line.
type worker struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Scanner
}

// start runs the test binary as a worker in mode on the database at where; the process is
// killed and reaped when t ends.
func (w Worker) start(t *testing.T, mode, where string) worker {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), w.Env+"="+mode, w.Env+"_AT="+where)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return worker{cmd, stdin, bufio.NewScanner(stdout)}
}

// RunProcesses runs the multi-process cases: three worker processes draining one database
// claim every task exactly once, and a SIGKILLed lease holder's task is claimed again at
// generation 2 once its lease has run out, the dead generation fenced out. shared returns a
// fresh, empty database: where a worker finds it (what w.Open receives) and a store on it
// in this process with its clock ([Timed]); RunProcesses closes that store.
func RunProcesses(t *testing.T, w Worker, shared func(t *testing.T) (where string, s tasks.Store)) {
	t.Run("ClaimExclusively", func(t *testing.T) { claimExclusively(t, w, shared) })
	t.Run("KilledWorkerLosesLease", func(t *testing.T) { killedWorkerLosesLease(t, w, shared) })
}

// seeded is the shared database with n runnable tasks, job-000 onwards.
func seeded(t *testing.T, shared func(t *testing.T) (string, tasks.Store), n int) (string, tasks.Store) {
	t.Helper()
	where, s := shared(t)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	for i := range n {
		task := &tasks.Task{ID: fmt.Sprintf("job-%03d", i), Scope: "alice", Status: tasks.StatusWorking,
			TTL: time.Hour, Work: tasks.Work{Version: 1, Tool: "slow_compute"}}
		require.NoError(t, s.Create(ctx(t), task, tasks.Limits{MaxActivePerScope: n}))
	}
	return where, s
}

// claimExclusively: three processes drain one database at once; every task is claimed and
// completed by exactly one of them.
func claimExclusively(t *testing.T, w Worker, shared func(t *testing.T) (string, tasks.Store)) {
	const n = 60
	where, s := seeded(t, shared, n)
	var procs []worker
	for range 3 {
		p := w.start(t, "drain", where)
		require.True(t, p.out.Scan())
		require.Equal(t, "ready", p.out.Text())
		procs = append(procs, p)
	}
	for _, p := range procs {
		_, err := io.WriteString(p.stdin, "go\n")
		require.NoError(t, err)
	}
	seen := map[string]int{}
	for _, p := range procs {
		for p.out.Scan() {
			seen[p.out.Text()]++
		}
		require.NoError(t, p.cmd.Wait())
	}
	require.Len(t, seen, n)
	for id, k := range seen {
		assert.Equal(t, 1, k, "%s claimed by more than one process", id)
		assert.Equal(t, tasks.StatusCompleted, get(t, s, id).Status)
	}
}

// killedWorkerLosesLease: a process holding a lease is killed (SIGKILL); the task stays
// leased to it until the lease has run out, then this process claims it at the next
// generation and the dead worker's generation is fenced out.
func killedWorkerLosesLease(t *testing.T, w Worker, shared func(t *testing.T) (string, tasks.Store)) {
	where, s := seeded(t, shared, 1)
	p := w.start(t, "hold", where)
	require.True(t, p.out.Scan())
	require.Equal(t, "job-000", strings.TrimSpace(p.out.Text()))
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGKILL))
	require.Error(t, p.cmd.Wait())

	held := get(t, s, "job-000")
	assert.Equal(t, int64(1), held.LeaseGen)
	assert.Equal(t, workerName(p.cmd.Process.Pid), held.LeaseOwner)
	none, err := s.ClaimNext(ctx(t), "survivor", workerLease)
	require.NoError(t, err)
	require.Nil(t, none, "the dead worker's lease still runs")

	clk, ok := s.(Clock)
	require.True(t, ok, "shared must return a store with its clock: storetest.Timed(store, clock)")
	clk.Advance(workerLease)
	again, err := s.ClaimNext(ctx(t), "survivor", workerLease)
	require.NoError(t, err)
	require.NotNil(t, again)
	assert.Equal(t, "job-000", again.ID)
	assert.Equal(t, int64(2), again.LeaseGen)
	assert.Equal(t, 2, again.Attempt)
	_, err = s.Renew(ctx(t), "job-000", 1, workerLease)
	require.ErrorIs(t, err, tasks.ErrLeaseLost)
}
