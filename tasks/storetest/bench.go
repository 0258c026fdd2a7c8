package storetest

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fastmcp-go/fastmcp/tasks"
)

// BenchCreate measures s.Create against its floor, the physical floor of the same database
// (usually s.Floor): one plain single-row INSERT and COMMIT of as many bytes. The two
// alternate, one of each per iteration, so both see the same machine. It reports the mean,
// p50 and p99 latency of each (store-*, floor-*), the store's creates per second, and ratio,
// the store's mean over the floor's (the goal is at most 2). The floor's table is dropped at
// the end.
func BenchCreate(b *testing.B, s tasks.Store, openFloor Floor) {
	ctx := b.Context()
	floor, drop, err := openFloor(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := drop(context.WithoutCancel(ctx)); err != nil {
			b.Error(err)
		}
	}()
	lim := tasks.Limits{MaxTasks: 1 << 30, MaxActivePerScope: 1 << 30}
	var storeTimes, floorTimes []time.Duration
	var storeTotal, floorTotal time.Duration
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		task := newTask(fmt.Sprintf("bench-%s-%09d", b.Name(), i))
		task.Scope = fmt.Sprintf("scope-%d", i%64)
		body := append(append([]byte(nil), task.Work.Arguments...), task.Work.Meta...)
		start := time.Now()
		if err := s.Create(ctx, task, lim); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		if err := floor(ctx, task.ID, body); err != nil {
			b.Fatal(err)
		}
		end := time.Now()
		storeTimes, floorTimes = append(storeTimes, mid.Sub(start)), append(floorTimes, end.Sub(mid))
		storeTotal, floorTotal = storeTotal+mid.Sub(start), floorTotal+end.Sub(mid)
		i++
	}
	if i == 0 {
		return
	}
	n := time.Duration(i)
	b.ReportMetric(float64(storeTotal/n), "store-ns")
	b.ReportMetric(float64(floorTotal/n), "floor-ns")
	b.ReportMetric(float64(percentile(storeTimes, 50)), "store-p50-ns")
	b.ReportMetric(float64(percentile(storeTimes, 99)), "store-p99-ns")
	b.ReportMetric(float64(percentile(floorTimes, 50)), "floor-p50-ns")
	b.ReportMetric(float64(percentile(floorTimes, 99)), "floor-p99-ns")
	b.ReportMetric(float64(i)/storeTotal.Seconds(), "creates/s")
	b.ReportMetric(float64(storeTotal)/float64(floorTotal), "ratio")
}

func percentile(d []time.Duration, p int) time.Duration {
	slices.Sort(d)
	return d[(len(d)-1)*p/100]
}

// BenchCreateParallel measures s.Create from callers concurrent callers at once (each
// creating its own tasks, over 64 scopes): its creates/s is what one database commits of
// them, the store's write rate rather than one caller's round trip.
func BenchCreateParallel(b *testing.B, s tasks.Store, callers int) {
	lim := tasks.Limits{MaxTasks: 1 << 30, MaxActivePerScope: 1 << 30}
	var next atomic.Int64
	b.SetParallelism(max(1, callers/runtime.GOMAXPROCS(0)))
	b.ReportAllocs()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := next.Add(1)
			task := newTask(fmt.Sprintf("par-%s-%09d", b.Name(), i))
			task.Scope = fmt.Sprintf("scope-%d", i%64)
			if err := s.Create(b.Context(), task, lim); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(next.Load())/time.Since(start).Seconds(), "creates/s")
}
