package fastmcp

import (
	"bytes"
	"context"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// fanOut is a set of open listen streams (toolsListChanged) that count the events they write.
type fanOut struct {
	s       *Server
	n       int
	round   atomic.Pointer[fanOutRound]
	acks    sync.WaitGroup
	done    sync.WaitGroup
	cancel  context.CancelFunc
	heapPer float64 // heap bytes per open stream, request and message included
	stkPer  float64 // stack bytes per open stream (the goroutine that serves it)
}

type fanOutRound struct {
	left atomic.Int64
	all  chan struct{} // closed when every stream wrote its event
}

// fanOutSink is shared by every stream of a fanOut.
type fanOutSink struct{ f *fanOut }

var ackPrefix = []byte(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged"`)

func (k fanOutSink) Notify(_ context.Context, msg []byte) error {
	if bytes.HasPrefix(msg, ackPrefix) {
		k.f.acks.Done()
		return nil
	}
	if r := k.f.round.Load(); r != nil && r.left.Add(-1) == 0 {
		close(r.all)
	}
	return nil
}

// openStreams opens n listen streams on a new server, each served by Dispatch in its own
// goroutine with its own context, as a transport would, and measures what they hold once idle
// (everything but the transport's own connection state).
func openStreams(tb testing.TB, n int) *fanOut {
	tb.Helper()
	s := newTestServer(tb, nil)
	addKinds(s, kindTool)
	ctx, cancel := context.WithCancel(context.Background())
	f := &fanOut{s: s, n: n, cancel: cancel}
	sink := fanOutSink{f}

	var before, after runtime.MemStats
	runtime.GC() // twice: sync.Pool contents survive one collection
	runtime.GC()
	runtime.ReadMemStats(&before)
	f.acks.Add(n)
	f.done.Add(n)
	for i := range n {
		msg := []byte(listenRequest(strconv.Itoa(1_000_000_000_000+i), `{"toolsListChanged":true}`))
		go func() {
			defer f.done.Done()
			sctx, cancel := context.WithCancel(ctx) // a context per request, as transports make
			defer cancel()
			s.Dispatch(sctx, msg, sink)
		}()
	}
	f.acks.Wait()
	for s.Subscribers() != n {
		runtime.Gosched()
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	f.heapPer = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
	f.stkPer = float64(int64(after.StackInuse)-int64(before.StackInuse)) / float64(n)
	tb.Cleanup(f.close)
	return f
}

// publish publishes one tools/list_changed and returns once every stream has written it.
func (f *fanOut) publish(tb testing.TB) time.Duration {
	r := &fanOutRound{all: make(chan struct{})}
	r.left.Store(int64(f.n))
	f.round.Store(r)
	start := time.Now()
	f.s.Publish(Event{Kind: ToolsListChanged})
	select {
	case <-r.all:
	case <-time.After(time.Minute):
		tb.Fatalf("%d of %d streams did not get the event", r.left.Load(), f.n)
	}
	return time.Since(start)
}

func (f *fanOut) close() {
	f.cancel()
	f.done.Wait()
}

// BenchmarkPublish measures the fan-out of one list_changed event: ns/op is the time from
// Publish until every stream has written it through its sink; cpu-ns/op is the CPU time the
// process spent for it, which a busy machine disturbs less. B/subscriber is the memory an
// idle stream holds (heap: request, message, listener; stack: its goroutine).
func BenchmarkPublish(b *testing.B) {
	for _, n := range []int{1, 100, 1000, 10_000} {
		b.Run("subscribers="+strconv.Itoa(n), func(b *testing.B) {
			f := openStreams(b, n)
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				f.publish(b)
			}
			b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(f.heapPer, "heap-B/subscriber")
			b.ReportMetric(f.stkPer, "stack-B/subscriber")
		})
	}
}

// TestBenchmarkPublish runs the benchmark's body on every go test.
func TestBenchmarkPublish(t *testing.T) {
	f := openStreams(t, 50)
	for range 3 {
		f.publish(t)
	}
	f.close()
	if f.s.Subscribers() != 0 {
		t.Fatalf("%d streams left", f.s.Subscribers())
	}
}

// processCPU returns the user and system CPU time the process has used, in nanoseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
