package sqlitestore_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/sqlitestore"
)

// The test binary doubles as a worker process sharing a database file: with helperEnv set
// to a mode and helperFile to the file, TestMain runs the worker instead of the tests.
const (
	helperEnv  = "FASTMCP_SQLITESTORE_HELPER"
	helperFile = "FASTMCP_SQLITESTORE_FILE"
)

// helperProcess runs the worker when this process is one, and reports whether it was.
// Modes: "drain" prints "ready", waits for a line on stdin, then claims and completes tasks
// until none is runnable, printing each id; "hold" claims one task, prints its id and
// blocks until killed.
func helperProcess() bool {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		return false
	}
	if err := runHelper(mode, os.Getenv(helperFile)); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(1)
	}
	return true
}

func runHelper(mode, file string) error {
	ctx := context.Background()
	s, err := sqlitestore.Open(ctx, file, sqlitestore.Config{})
	if err != nil {
		return err
	}
	defer s.Close()
	worker := fmt.Sprintf("pid-%d", os.Getpid())
	if mode == "hold" {
		t, err := s.ClaimNext(ctx, worker, time.Minute)
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
		t, err := s.ClaimNext(ctx, worker, time.Minute)
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

func helper(t *testing.T, mode, file string) (*exec.Cmd, io.WriteCloser, *bufio.Scanner) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, helperFile+"="+file)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, stdin, bufio.NewScanner(stdout)
}

func seed(t *testing.T, file string, n int) {
	t.Helper()
	s, err := sqlitestore.Open(t.Context(), file, sqlitestore.Config{})
	require.NoError(t, err)
	defer s.Close()
	for i := range n {
		task := &tasks.Task{ID: fmt.Sprintf("job-%03d", i), Scope: "alice", Status: tasks.StatusWorking,
			TTL: time.Hour, Work: tasks.Work{Version: 1, Tool: "slow_compute"}}
		require.NoError(t, s.Create(t.Context(), task, tasks.Limits{MaxActivePerScope: n}))
	}
}

// TestProcessesClaimExclusively: three processes drain one file at once; every task is
// claimed and completed by exactly one of them.
func TestProcessesClaimExclusively(t *testing.T) {
	const n = 60
	file := filepath.Join(t.TempDir(), "shared.db")
	seed(t, file, n)
	type proc struct {
		cmd   *exec.Cmd
		stdin io.WriteCloser
		out   *bufio.Scanner
	}
	var procs []proc
	for range 3 {
		cmd, stdin, out := helper(t, "drain", file)
		require.True(t, out.Scan())
		require.Equal(t, "ready", out.Text())
		procs = append(procs, proc{cmd, stdin, out})
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
	}
	s, err := sqlitestore.Open(t.Context(), file, sqlitestore.Config{})
	require.NoError(t, err)
	defer s.Close()
	for id := range seen {
		got, err := s.Get(t.Context(), id)
		require.NoError(t, err)
		assert.Equal(t, tasks.StatusCompleted, got.Status)
	}
}

// TestKilledWorkerLosesLease: a process holding a lease is killed (SIGKILL); the task is on
// disk, and once the lease has run out another store claims it at the next generation.
func TestKilledWorkerLosesLease(t *testing.T) {
	file := filepath.Join(t.TempDir(), "killed.db")
	seed(t, file, 1)
	cmd, _, out := helper(t, "hold", file)
	require.True(t, out.Scan())
	require.Equal(t, "job-000", strings.TrimSpace(out.Text()))
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	require.Error(t, cmd.Wait())

	later := func() time.Time { return time.Now().Add(time.Minute) }
	s, err := sqlitestore.Open(t.Context(), file, sqlitestore.Config{Now: later})
	require.NoError(t, err)
	defer s.Close()
	held, err := s.Get(t.Context(), "job-000")
	require.NoError(t, err)
	assert.Equal(t, int64(1), held.LeaseGen)
	assert.Equal(t, fmt.Sprintf("pid-%d", cmd.Process.Pid), held.LeaseOwner)
	again, err := s.ClaimNext(t.Context(), "survivor", time.Minute)
	require.NoError(t, err)
	require.NotNil(t, again)
	assert.Equal(t, "job-000", again.ID)
	assert.Equal(t, int64(2), again.LeaseGen)
	assert.Equal(t, 2, again.Attempt)
}
