package sse

import (
	"sync"
	"sync/atomic"
	"time"
)

// KeepAlive writes a ": keepalive" comment whenever the stream has been
// silent (no event and no comment written) for [Config.KeepAliveInterval],
// until stop is called or a write fails. A failed write calls gone once, from
// the timer's goroutine: that is how a stream learns that its client has left.
//
// It starts no goroutine: an idle stream costs one timer, which is not reset
// by events (each firing looks at when the last frame was written), so
// writing an event costs nothing extra. stop may be called more than once and
// from any goroutine; no keepalive starts after it returns.
func (w *Writer) KeepAlive(gone func()) (stop func()) {
	k := &keepAliver{w: w, gone: gone}
	k.mu.Lock()
	k.t = time.AfterFunc(w.keepAlive, k.fire)
	k.mu.Unlock()
	return k.stop
}

// keepAliver is the state of one [Writer.KeepAlive].
type keepAliver struct {
	w       *Writer
	gone    func()
	stopped atomic.Bool
	mu      sync.Mutex // guards t's assignment against an early fire
	t       *time.Timer
}

func (k *keepAliver) fire() {
	if k.stopped.Load() {
		return
	}
	wait := k.w.keepAlive - time.Since(k.w.lastFrame())
	if wait <= 0 {
		if err := k.w.WriteKeepAlive(); err != nil {
			if !k.stopped.Swap(true) {
				k.gone()
			}
			return
		}
		wait = k.w.keepAlive
	}
	k.mu.Lock()
	k.t.Reset(wait)
	k.mu.Unlock()
	if k.stopped.Load() { // stop ran between the check above and the Reset
		k.t.Stop()
	}
}

func (k *keepAliver) stop() {
	k.stopped.Store(true)
	k.mu.Lock()
	k.t.Stop()
	k.mu.Unlock()
}
