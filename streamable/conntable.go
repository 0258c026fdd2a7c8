package streamable

import (
	"sync"
	"sync/atomic"
)

// connState is the part of a connection the server's tick reads on every pass: its deadlines,
// the read or write in progress, and the start of an inline request. The states live in
// dense chunks, one cache line each, so a pass over 10,000 connections reads contiguous
// memory instead of chasing 10,000 pointers (which cost about an eighth of a core at one
// pass per tick; BenchmarkTickPass).
type connState struct {
	c               atomic.Pointer[conn] // nil: the slot is free
	readAt, writeAt atomic.Int64         // deadlines, Unix nanoseconds; 0: none
	// When the read or write in progress began, in coarse Unix nanoseconds; 0: none.
	readSince, writeSince atomic.Int64
	inlineStart           atomic.Int64 // an inline request's start, coarse; 0: none
	idle                  atomic.Bool  // waiting for the next request (fasthttp's StateIdle)
	_                     [12]byte     // one cache line per connection: no false sharing
}

// chunkSlots is the number of connection states per chunk (16 KiB).
const chunkSlots = 256

// connTable holds the states of the open connections. Chunks are never freed or moved, so a
// state's address is stable; free slots are reused.
type connTable struct {
	mu     sync.Mutex
	chunks []*[chunkSlots]connState
	used   int     // slots ever handed out
	free   []int32 // returned slots
	open   int
}

// add gives c a cleared state (c.st, c.slot) and then makes it visible to passes.
func (t *connTable) add(c *conn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var i int32
	if n := len(t.free); n > 0 {
		i, t.free = t.free[n-1], t.free[:n-1]
	} else {
		if t.used == len(t.chunks)*chunkSlots {
			t.chunks = append(t.chunks, new([chunkSlots]connState))
		}
		i = int32(t.used)
		t.used++
	}
	st := &t.chunks[i/chunkSlots][i%chunkSlots]
	st.readAt.Store(0)
	st.writeAt.Store(0)
	st.readSince.Store(0)
	st.writeSince.Store(0)
	st.inlineStart.Store(0)
	st.idle.Store(false)
	c.st, c.slot = st, i
	st.c.Store(c)
	t.open++
}

// remove frees slot i.
func (t *connTable) remove(i int32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.chunks[i/chunkSlots][i%chunkSlots].c.Store(nil)
	t.free = append(t.free, i)
	t.open--
}

// each calls f for every slot in use, without holding the table's lock: a connection added
// meanwhile may be missed, and one removed meanwhile may still be seen (f checks).
func (t *connTable) each(f func(*connState, *conn)) {
	t.mu.Lock()
	chunks, used := t.chunks, t.used
	t.mu.Unlock()
	for i := range used {
		st := &chunks[i/chunkSlots][i%chunkSlots]
		if c := st.c.Load(); c != nil {
			f(st, c)
		}
	}
}

// count returns the number of connections open now.
func (t *connTable) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.open
}

// all returns the connections open now.
func (t *connTable) all() []*conn {
	t.mu.Lock()
	out := make([]*conn, 0, t.open)
	t.mu.Unlock()
	t.each(func(_ *connState, c *conn) { out = append(out, c) })
	return out
}
