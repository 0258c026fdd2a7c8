//go:build !race

package pool

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// signalTask does nothing and signals its outcome; it allocates nothing.
type signalTask struct{ done chan struct{} }

func newSignalTask() *signalTask { return &signalTask{done: make(chan struct{}, 1)} }

func (*signalTask) Run(context.Context) error { return nil }
func (t *signalTask) Done(Result)             { t.done <- struct{}{} }

// allocsPerJob is testing.AllocsPerRun per job. AllocsPerRun divides as
// integers, so each run does many jobs: the result is exact to 1/jobsPerRun.
func allocsPerJob(job func()) float64 {
	const jobsPerRun = 100
	return testing.AllocsPerRun(20, func() {
		for range jobsPerRun {
			job()
		}
	}) / jobsPerRun
}

// The budget: one allocation per job (its context), whether or not it has a
// key, a deadline or a cancellable submitter context.
func TestAllocsSubmit(t *testing.T) {
	const budget = 1
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	tests := []struct {
		name    string
		cfg     Config
		ctx     context.Context
		key     Key
		timeout bool
	}{
		{"no key", Config{}, context.Background(), Key{}, true},
		{"key", Config{}, context.Background(), Key{Owner: 1, ID: "42"}, true},
		{"cancellable submitter", Config{}, cancellable, Key{Owner: 1, ID: "42"}, true},
		{"no deadline", Config{DefaultTimeout: NoTimeout}, context.Background(), Key{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newExecutor(t, tc.cfg)
			tk := newSignalTask()
			allocs := allocsPerJob(func() {
				if err := e.Submit(tc.ctx, tc.key, tk); err != nil {
					panic(err)
				}
				<-tk.done
			})
			t.Logf("%.2f allocs per job", allocs)
			assert.LessOrEqual(t, allocs, float64(budget))
		})
	}
}

// A queued job that leaves the queue (here by Cancel) costs the same.
func TestAllocsSubmitQueued(t *testing.T) {
	const budget = 1
	e := newExecutor(t, Config{MaxConcurrency: 1})
	g := newGate()
	defer g.open()
	require.NoError(t, e.SubmitTimeout(context.Background(), Key{}, NoTimeout, newTask(blockOn(g))))
	tk := newSignalTask()
	key := Key{Owner: 1, ID: "q"}
	allocs := allocsPerJob(func() {
		if err := e.Submit(context.Background(), key, tk); err != nil {
			panic(err)
		}
		e.Cancel(key, nil)
		<-tk.done
	})
	t.Logf("%.2f allocs per job", allocs)
	assert.LessOrEqual(t, allocs, float64(budget))
}

// releaseSignalTask is a signalTask that is a Releaser and signals in
// Release instead of Done.
type releaseSignalTask struct{ done chan struct{} }

func (*releaseSignalTask) Run(context.Context) error { return nil }
func (*releaseSignalTask) Done(Result)               {}
func (t *releaseSignalTask) Release()                { t.done <- struct{}{} }

// A Releaser costs nothing more, on a worker or inline; neither does a Task
// that is not one, inline.
func TestAllocsRelease(t *testing.T) {
	const budget = 1
	key := Key{Owner: 1, ID: "42"}
	t.Run("submit", func(t *testing.T) {
		e := newExecutor(t, Config{})
		tk := &releaseSignalTask{done: make(chan struct{}, 1)}
		allocs := allocsPerJob(func() {
			if err := e.Submit(context.Background(), key, tk); err != nil {
				panic(err)
			}
			<-tk.done
		})
		t.Logf("%.2f allocs per job", allocs)
		assert.LessOrEqual(t, allocs, float64(budget))
	})
	for _, tc := range []struct {
		name string
		task Task
	}{
		{"inline", newSignalTask()},
		{"inline releaser", &releaseSignalTask{done: make(chan struct{}, 1)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newExecutor(t, Config{})
			allocs := allocsPerJob(func() {
				inline, err := e.SubmitInline(context.Background(), key, 0, tc.task)
				if err != nil || !inline {
					panic("not inline")
				}
				switch tk := tc.task.(type) {
				case *signalTask:
					<-tk.done
				case *releaseSignalTask:
					<-tk.done
				}
			})
			t.Logf("%.2f allocs per job", allocs)
			assert.LessOrEqual(t, allocs, float64(budget))
		})
	}
}
