package pgstore_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/pgstore"
)

// The test binary doubles as a worker process on the same database: with helperEnv set to
// a mode and helperDSN to the database, TestMain runs the worker instead of the tests.
const (
	helperEnv = "FASTMCP_PGSTORE_HELPER"
	helperDSN = "FASTMCP_PGSTORE_DSN"
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
	if err := runHelper(mode, os.Getenv(helperDSN)); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(1)
	}
	return true
}

func runHelper(mode, dsn string) error {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return err
	}
	defer pool.Close()
	s, err := pgstore.Open(ctx, pool)
	if err != nil {
		return err
	}
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

func helper(t *testing.T, mode string, pool *pgxpool.Pool) (*exec.Cmd, io.WriteCloser, *bufio.Scanner) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run=^$")
	dsn, err := url.Parse(serverDSN(t))
	require.NoError(t, err)
	dsn.Path = "/" + pool.Config().ConnConfig.Database
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, helperDSN+"="+dsn.String())
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, stdin, bufio.NewScanner(stdout)
}

// migratedDatabase is a fresh migrated database with n runnable tasks.
func migratedDatabase(t *testing.T, n int) (*pgxpool.Pool, *pgstore.Store) {
	t.Helper()
	pool := newDatabase(t)
	require.NoError(t, pgstore.Migrate(t.Context(), pool))
	s, err := pgstore.Open(t.Context(), pool)
	require.NoError(t, err)
	for i := range n {
		task := &tasks.Task{ID: fmt.Sprintf("job-%03d", i), Scope: "alice", Status: tasks.StatusWorking,
			TTL: time.Hour, Work: tasks.Work{Version: 1, Tool: "slow_compute"}}
		require.NoError(t, s.Create(t.Context(), task, tasks.Limits{MaxActivePerScope: n}))
	}
	return pool, s
}

// TestProcessesClaimExclusively: three processes drain one database at once; every task is
// claimed and completed by exactly one of them.
func TestProcessesClaimExclusively(t *testing.T) {
	const n = 60
	pool, s := migratedDatabase(t, n)
	type proc struct {
		cmd   *exec.Cmd
		stdin io.WriteCloser
		out   *bufio.Scanner
	}
	var procs []proc
	for range 3 {
		cmd, stdin, out := helper(t, "drain", pool)
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
		got, err := s.Get(t.Context(), id)
		require.NoError(t, err)
		assert.Equal(t, tasks.StatusCompleted, got.Status)
	}
}

// TestKilledWorkerLosesLease: a process holding a lease is killed (SIGKILL); once the lease
// has run out (the database's clock moved past it) this process claims the task at the
// next generation, and the dead worker's generation is fenced out.
func TestKilledWorkerLosesLease(t *testing.T) {
	pool, s := migratedDatabase(t, 1)
	cmd, _, out := helper(t, "hold", pool)
	require.True(t, out.Scan())
	require.Equal(t, "job-000", strings.TrimSpace(out.Text()))
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	require.Error(t, cmd.Wait())

	none, err := s.ClaimNext(t.Context(), "survivor", time.Minute)
	require.NoError(t, err)
	require.Nil(t, none, "the dead worker's lease still runs")
	dbClock{t, pool}.Advance(time.Minute)
	again, err := s.ClaimNext(t.Context(), "survivor", time.Minute)
	require.NoError(t, err)
	require.NotNil(t, again)
	assert.Equal(t, "job-000", again.ID)
	assert.Equal(t, int64(2), again.LeaseGen)
	assert.Equal(t, 2, again.Attempt)
	_, err = s.Renew(t.Context(), "job-000", 1, time.Minute)
	require.ErrorIs(t, err, tasks.ErrLeaseLost)
}
