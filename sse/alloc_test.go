//go:build !race

package sse

import (
	"io"
	"runtime"
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

// TestIdleStreamMemory measures what an idle stream costs here: a Writer
// over a connection and its keepalive timer (the transport's goroutine and
// connection are counted by the transport). The budget is 1 KiB.
func TestIdleStreamMemory(t *testing.T) {
	const streams = 2000
	synctest.Test(t, func(t *testing.T) {
		stops := make([]func(), 0, streams)
		before := memInUse()
		for range streams {
			w, err := NewWriter(discardConn{}, nil, Config{})
			require.NoError(t, err)
			stops = append(stops, w.KeepAlive(func() {}))
		}
		perStream := float64(memInUse()-before) / streams
		for _, stop := range stops {
			stop()
		}
		t.Logf("idle stream (Writer and its keepalive timer): %.0f B; Writer struct: %d B",
			perStream, unsafe.Sizeof(Writer{}))
		assert.Less(t, perStream, 1024.0, "budget: 1 KiB per idle stream")
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
