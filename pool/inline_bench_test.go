package pool

import (
	"context"
	"testing"
	"time"
)

// inlineBenchTask does almost nothing, so that the benchmark measures the
// executor's own cost per inline job.
type inlineBenchTask struct{ done int }

func (*inlineBenchTask) Run(context.Context) error { benchWork(); return nil }
func (t *inlineBenchTask) Done(Result)             { t.done++ }

// BenchmarkSubmitInline is the HTTP transport's path: a keyed job with a
// deadline, a worker free and nothing queued, run on the caller's goroutine.
// The submitter's context is either one that never ends or, as for an HTTP
// request, a cancellable one.
func BenchmarkSubmitInline(b *testing.B) {
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, bc := range []struct {
		name string
		ctx  context.Context
	}{{"background", context.Background()}, {"cancellable", cancellable}} {
		b.Run("ctx="+bc.name, func(b *testing.B) {
			e := newExecutor(b, Config{})
			key := Key{Owner: 1, ID: "42"}
			t := &inlineBenchTask{}
			b.ReportAllocs()
			for b.Loop() {
				inline, err := e.SubmitInline(bc.ctx, key, 30*time.Second, t)
				if err != nil || !inline {
					b.Fatalf("SubmitInline: inline %v, err %v", inline, err)
				}
			}
			if t.done != b.N {
				b.Fatalf("%d deliveries for %d jobs", t.done, b.N)
			}
		})
	}
}

// inlineReleaseTask is inlineBenchTask that is a [Releaser], as the
// transports' tasks are.
type inlineReleaseTask struct{ done, released int }

func (*inlineReleaseTask) Run(context.Context) error { benchWork(); return nil }
func (t *inlineReleaseTask) Done(Result)             { t.done++ }
func (t *inlineReleaseTask) Release()                { t.released++ }

// BenchmarkSubmitInlineReleaser is BenchmarkSubmitInline/ctx=background with
// a Task that is a Releaser: the cost of telling it that the job is over.
func BenchmarkSubmitInlineReleaser(b *testing.B) {
	b.Run("ctx=background", func(b *testing.B) {
		e := newExecutor(b, Config{})
		key := Key{Owner: 1, ID: "42"}
		t := &inlineReleaseTask{}
		b.ReportAllocs()
		for b.Loop() {
			inline, err := e.SubmitInline(context.Background(), key, 30*time.Second, t)
			if err != nil || !inline {
				b.Fatalf("SubmitInline: inline %v, err %v", inline, err)
			}
		}
		if t.done != b.N || t.released != b.N {
			b.Fatalf("%d deliveries and %d releases for %d jobs", t.done, t.released, b.N)
		}
	})
}
