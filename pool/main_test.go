package pool

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// IgnoreCurrent covers the default pool that ants starts when imported.
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent())
}

// task is a Task for tests: Run calls run (if set); Done records results.
type task struct {
	run     func(ctx context.Context) error
	ran     atomic.Bool
	results chan Result // buffered; a second delivery is detected by count
	count   atomic.Int32
}

func newTask(run func(ctx context.Context) error) *task {
	return &task{run: run, results: make(chan Result, 2)}
}

func (t *task) Run(ctx context.Context) error {
	t.ran.Store(true)
	if t.run == nil {
		return nil
	}
	return t.run(ctx)
}

func (t *task) Done(r Result) {
	t.count.Add(1)
	t.results <- r
}

// result waits for the task's outcome. Inside a synctest bubble a missing
// delivery is reported as a deadlock.
func (t *task) result(tb testing.TB) Result {
	tb.Helper()
	r := <-t.results
	require.EqualValues(tb, 1, t.count.Load(), "Done called more than once")
	return r
}

// delivered reports whether Done has been called, without waiting.
func (t *task) delivered() bool { return t.count.Load() > 0 }

// gate blocks jobs until opened.
type gate chan struct{}

func newGate() gate  { return make(gate) }
func (g gate) open() { close(g) }

// blockOn returns a Run that waits for g, ignoring its context.
func blockOn(g gate) func(context.Context) error {
	return func(context.Context) error { <-g; return nil }
}

// newExecutor returns an Executor closed when the test ends.
func newExecutor(tb testing.TB, cfg Config) *Executor {
	tb.Helper()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	e, err := New(cfg)
	require.NoError(tb, err)
	tb.Cleanup(func() { require.NoError(tb, e.Close(context.Background())) })
	return e
}

// logBuffer is a concurrency-safe slog destination.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
