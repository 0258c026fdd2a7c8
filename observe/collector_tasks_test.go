package observe

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/pool"
	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/memstore"
	"github.com/fastmcp-go/fastmcp/tasks/sqlitestore"
)

// putTasks stores two working tasks, one input_required and one completed.
func putTasks(t *testing.T, s tasks.Store) {
	t.Helper()
	for i, status := range []tasks.Status{tasks.StatusWorking, tasks.StatusWorking, tasks.StatusInputRequired, tasks.StatusCompleted} {
		require.NoError(t, s.Create(t.Context(), &tasks.Task{
			ID: "t" + string(rune('0'+i)), Scope: "alice", Status: status, StatusMessage: "m",
			Work: tasks.Work{Version: 1, Tool: "slow"},
		}, tasks.Limits{}))
	}
}

// TestTasksByStatus scrapes fastmcp_tasks over memstore and sqlitestore: one series per
// status, zeros included, read from the store at scrape time.
func TestTasksByStatus(t *testing.T) {
	sqlite, err := sqlitestore.Open(t.Context(), filepath.Join(t.TempDir(), "tasks.db"), sqlitestore.Config{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, sqlite.Close()) })
	for name, store := range map[string]tasks.Store{"memstore": memstore.New(memstore.Config{}), "sqlitestore": sqlite} {
		t.Run(name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			c, err := NewCollector(Sources{Tasks: store.(tasks.Counter)})
			require.NoError(t, err)
			reg.MustRegister(c)
			l := startListener(t, reg, nil)
			assert.Equal(t, []string{
				`fastmcp_tasks{status="cancelled"} 0`,
				`fastmcp_tasks{status="completed"} 0`,
				`fastmcp_tasks{status="failed"} 0`,
				`fastmcp_tasks{status="input_required"} 0`,
				`fastmcp_tasks{status="working"} 0`,
			}, scrape(t, l, TasksName+"{"))
			putTasks(t, store)
			assert.Equal(t, []string{
				`fastmcp_tasks{status="cancelled"} 0`,
				`fastmcp_tasks{status="completed"} 1`,
				`fastmcp_tasks{status="failed"} 0`,
				`fastmcp_tasks{status="input_required"} 1`,
				`fastmcp_tasks{status="working"} 2`,
			}, scrape(t, l, TasksName+"{"))
		})
	}
}

// fixedExecutor reports an idle executor.
type fixedExecutor struct{}

func (fixedExecutor) Stats() pool.Stats { return pool.Stats{} }

// lockedBuffer is a log destination the scrape's goroutine writes and the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// stuckCounter is a store that answers only when its context ends.
type stuckCounter struct{}

func (stuckCounter) CountByStatus(ctx context.Context) (map[tasks.Status]int, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestTasksTimeout checks TasksTimeout: a store that does not answer leaves fastmcp_tasks
// out of the scrape, the rest of which is answered and a warning logged (without the
// limit, the scrape would hang until the exchange's own 10 s deadline fails the test).
func TestTasksTimeout(t *testing.T) {
	var logged lockedBuffer
	reg := prometheus.NewRegistry()
	c, err := NewCollector(Sources{Tasks: stuckCounter{}, TasksTimeout: 20 * time.Millisecond, Executor: fixedExecutor{}, Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	require.NoError(t, err)
	reg.MustRegister(c)
	l := startListener(t, reg, nil)
	assert.Empty(t, scrape(t, l, TasksName+"{"))
	assert.Equal(t, []string{ExecutorRunningName + " 0"}, scrape(t, l, ExecutorRunningName))
	assert.Contains(t, logged.String(), `msg="observe: cannot count the tasks by status; fastmcp_tasks is left out of this scrape" err="context deadline exceeded" timeout=20ms`)

	_, err = NewCollector(Sources{TasksTimeout: -1})
	assert.ErrorIs(t, err, ErrInvalidConfig)
}
