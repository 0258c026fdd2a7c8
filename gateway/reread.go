package gateway

import (
	"context"
	"slices"
	"sync"
	"time"
)

// rereads runs a connected backend's catalog re-reads one at a time, on a goroutine of
// their own, so that the watch loop keeps taking the backend's notifications meanwhile
// (none is dropped for a slow re-read). A re-read asked for while one runs is coalesced
// with every other asked for until it ends into one pending re-read: a backend that floods
// list_changed costs one re-read in flight and one pending, never one per notification.
// Each re-read announces the list_changed methods it answers (announce).
type rereads struct {
	b       *backend
	read    func(context.Context) (changes, error)
	timeout time.Duration

	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	done    chan rereadDone
	running bool
	pending bool     // a re-read was asked for while one ran
	methods []string // the list_changed methods the pending (or next) re-read answers
}

type rereadDone struct {
	methods []string
	ch      changes
	err     error
}

func newRereads(ctx context.Context, b *backend, timeout time.Duration, read func(context.Context) (changes, error)) *rereads {
	rctx, cancel := context.WithCancel(ctx)
	return &rereads{b: b, read: read, timeout: timeout, ctx: rctx, cancel: cancel, done: make(chan rereadDone, 1)}
}

// ask asks for a re-read answering method (a list_changed method, or "" for none): it
// starts now when none runs, else after the running one.
func (r *rereads) ask(method string) {
	if method != "" && !slices.Contains(r.methods, method) {
		r.methods = append(r.methods, method)
	}
	if r.running {
		r.pending = true
		return
	}
	r.start()
}

func (r *rereads) start() {
	methods := r.methods
	r.running, r.pending, r.methods = true, false, nil
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		ctx, cancel := context.WithTimeout(r.ctx, r.timeout)
		defer cancel()
		ch, err := r.read(ctx)
		r.done <- rereadDone{methods: methods, ch: ch, err: err}
	}()
}

// finished takes the end of the running re-read (from r.done): it announces what the
// re-read answered, starts the pending one, and returns the re-read's error.
func (r *rereads) finished(d rereadDone) error {
	r.running = false
	r.b.rereads.Add(1)
	if d.err != nil {
		return d.err
	}
	for _, m := range d.methods {
		r.b.announce(m, d.ch)
	}
	if r.pending {
		r.start()
	}
	return nil
}

// stop cancels the running re-read and waits for it.
func (r *rereads) stop() {
	r.cancel()
	r.wg.Wait()
}
