//go:build !race

package sse

import (
	"bufio"
	"context"
	"errors"
	"io"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Allocation budgets. The race detector allocates, hence the build tag.

func TestAllocsWriteEvent(t *testing.T) {
	for _, d := range benchDestinations {
		for _, p := range benchPayloads {
			t.Run(d.name+"/"+p.name, func(t *testing.T) {
				w := d.new(t)
				allocs := testing.AllocsPerRun(100, func() { runWriteEvent(t, w, p.data) })
				assert.Zero(t, allocs, "budget: 0 allocs per event")
			})
		}
	}
}

func TestAllocsWriteEventID(t *testing.T) {
	for _, d := range benchDestinations {
		t.Run(d.name, func(t *testing.T) {
			w := d.new(t)
			data := benchPayloads[0].data
			allocs := testing.AllocsPerRun(100, func() {
				if err := w.WriteEventID("12345", data); err != nil {
					t.Fatal(err)
				}
			})
			assert.Zero(t, allocs, "budget: 0 allocs per event")
		})
	}
}

func TestAllocsWriteKeepAlive(t *testing.T) {
	for _, d := range benchDestinations {
		t.Run(d.name, func(t *testing.T) {
			w := d.new(t)
			allocs := testing.AllocsPerRun(100, func() {
				if err := w.WriteKeepAlive(); err != nil {
					t.Fatal(err)
				}
			})
			assert.Zero(t, allocs, "budget: 0 allocs per keepalive")
		})
	}
}

// signalWriter signals each Write, so the test knows Run wrote an event.
type signalWriter struct{ wrote chan struct{} }

func (s signalWriter) Write(p []byte) (int, error) {
	s.wrote <- struct{}{}
	return len(p), nil
}

func TestAllocsRunEvent(t *testing.T) {
	sw := signalWriter{wrote: make(chan struct{})}
	w, err := NewWriter(bufio.NewWriter(sw), nil, Config{})
	require.NoError(t, err)
	events := make(chan []byte)
	done := make(chan error, 1)
	go func() { done <- w.Run(context.Background(), events) }()
	data := benchPayloads[0].data
	allocs := testing.AllocsPerRun(100, func() {
		events <- data
		<-sw.wrote
	})
	close(events)
	require.NoError(t, <-done)
	assert.Zero(t, allocs, "budget: 0 allocs per event through Run")
}

// TestIdleStreamMemory measures what an idle stream costs: a Writer over a
// connection, and Run waiting on its channel in its own goroutine (in a
// transport that goroutine already exists: the one running the streaming
// body or the hijacked connection). The lead's target is well under 20 KiB
// per stream; the budget here is 8 KiB.
func TestIdleStreamMemory(t *testing.T) {
	const streams = 2000
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		var wg sync.WaitGroup
		before := memInUse()
		for range streams {
			w, err := NewWriter(discardConn{}, nil, Config{})
			require.NoError(t, err)
			events := make(chan []byte)
			wg.Go(func() {
				if err := w.Run(ctx, events); !errors.Is(err, context.Canceled) {
					panic(err)
				}
			})
		}
		synctest.Wait() // every Run is waiting in its select
		perStream := float64(memInUse()-before) / streams
		cancel()
		wg.Wait()

		t.Logf("idle stream (Writer, Run's timer, channel, goroutine): %.0f B; Writer struct: %d B",
			perStream, unsafe.Sizeof(Writer{}))
		assert.Less(t, perStream, 8192.0, "budget: 8 KiB per idle stream")
	})
}

// memInUse returns the heap and stack memory in use after a collection.
func memInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc + m.StackInuse
}

var _ io.Writer = discardConn{}
