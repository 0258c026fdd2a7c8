package pool

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/panjf2000/ants/v2"
	"github.com/stretchr/testify/require"
)

// benchWork is the job every implementation runs: almost nothing, so that
// the benchmark measures the cost of getting it run and learning it ended.
var benchCounter atomic.Uint64

func benchWork() { benchCounter.Add(1) }

// benchTask runs benchWork and signals its outcome.
type benchTask struct{ done chan struct{} }

func (*benchTask) Run(context.Context) error { benchWork(); return nil }
func (t *benchTask) Done(Result)             { t.done <- struct{}{} }

// A submitter's roundTrip runs one job and waits until it has ended. Each
// goroutine of a benchmark gets its own submitter.
type submitter struct {
	name string
	// open prepares the implementation; the returned newRoundTrip gives
	// each goroutine its own round trip.
	open func(tb testing.TB) (newRoundTrip func(id uint64) func())
}

var submitters = []submitter{
	{"inline", func(testing.TB) func(uint64) func() {
		return func(uint64) func() { return benchWork }
	}},
	{"go", func(testing.TB) func(uint64) func() {
		return func(uint64) func() {
			done := make(chan struct{}, 1)
			return func() {
				go func() { benchWork(); done <- struct{}{} }()
				<-done
			}
		}
	}},
	{"ants", func(tb testing.TB) func(uint64) func() {
		p, err := ants.NewPoolWithFuncGeneric(DefaultMaxConcurrency, func(done chan struct{}) {
			benchWork()
			done <- struct{}{}
		})
		require.NoError(tb, err)
		tb.Cleanup(func() { require.NoError(tb, p.ReleaseContext(context.Background())) })
		return func(uint64) func() {
			done := make(chan struct{}, 1)
			return func() {
				if err := p.Invoke(done); err != nil {
					panic(err)
				}
				<-done
			}
		}
	}},
	{"pool", openPool(false)},
	{"pool-keyed", openPool(true)},
}

func openPool(keyed bool) func(testing.TB) func(uint64) func() {
	return func(tb testing.TB) func(uint64) func() {
		e := newExecutor(tb, Config{})
		return func(id uint64) func() {
			t := &benchTask{done: make(chan struct{}, 1)}
			var key Key
			if keyed {
				key = Key{Owner: id, ID: "1"}
			}
			ctx := context.Background()
			return func() {
				if err := e.Submit(ctx, key, t); err != nil {
					panic(err)
				}
				<-t.done
			}
		}
	}
}

// BenchmarkSubmit compares running one tiny job and waiting for it: inline,
// on a new goroutine with a channel, on a bare ants pool, and on the
// executor. mode=serial is one job at a time; mode=parallel runs one
// submitter per GOMAXPROCS.
func BenchmarkSubmit(b *testing.B) {
	for _, s := range submitters {
		b.Run("mode=serial/impl="+s.name, func(b *testing.B) {
			roundTrip := s.open(b)(0)
			b.ReportAllocs()
			for b.Loop() {
				roundTrip()
			}
		})
	}
	for _, s := range submitters {
		b.Run("mode=parallel/impl="+s.name, func(b *testing.B) {
			newRoundTrip := s.open(b)
			var ids atomic.Uint64
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				roundTrip := newRoundTrip(ids.Add(1))
				for pb.Next() {
					roundTrip()
				}
			})
		})
	}
}

// TestBenchmarkSubmit checks the benchmark bodies on every test run.
func TestBenchmarkSubmit(t *testing.T) {
	for _, s := range submitters {
		t.Run(s.name, func(t *testing.T) {
			before := benchCounter.Load()
			roundTrip := s.open(t)(1)
			for range 100 {
				roundTrip()
			}
			require.Equal(t, before+100, benchCounter.Load())
		})
	}
}
