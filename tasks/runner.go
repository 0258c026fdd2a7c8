package tasks

import (
	"context"
	"errors"
	"runtime/debug"
	"sync"
	"time"
)

// Why a run's context ended, besides shutdown.
var (
	errCauseCancelled = errors.New("tasks: task cancelled")
	errCauseLeaseLost = errors.New("tasks: lease lost")
	errCauseRuntime   = errors.New("tasks: maximum runtime exceeded")
)

// runner claims runnable tasks from the store, at most MaxJobs at once, and runs their
// work with leases it renews; every write it makes is fenced by its lease.
type runner struct {
	x      *Tasks
	ctx    context.Context // ends at shutdown
	cancel context.CancelFunc
	wakeCh chan struct{}
	slots  chan struct{}
	wg     sync.WaitGroup

	mu      sync.Mutex
	running map[string]context.CancelCauseFunc // by task id
}

func newRunner(x *Tasks) *runner {
	ctx, cancel := context.WithCancel(context.Background())
	return &runner{
		x: x, ctx: ctx, cancel: cancel,
		wakeCh:  make(chan struct{}, 1),
		slots:   make(chan struct{}, x.opts.MaxJobs),
		running: map[string]context.CancelCauseFunc{},
	}
}

func (rn *runner) start() {
	rn.wg.Add(2)
	go rn.claimLoop()
	go rn.reapLoop()
}

// stop interrupts every run (their leases are released, not their tasks changed) and waits.
func (rn *runner) stop() {
	rn.cancel()
	rn.wg.Wait()
}

// wake tells the runner that a task became runnable.
func (rn *runner) wake() {
	select {
	case rn.wakeCh <- struct{}{}:
	default:
	}
}

// wakeAfter wakes the runner once d has passed (a retry coming due), unless it stops first.
func (rn *runner) wakeAfter(d time.Duration) {
	rn.wg.Add(1)
	go func() {
		defer rn.wg.Done()
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			rn.wake()
		case <-rn.ctx.Done():
		}
	}()
}

// interrupt ends the run of task id in this process, if any, as cancelled.
func (rn *runner) interrupt(id string) {
	rn.mu.Lock()
	c := rn.running[id]
	rn.mu.Unlock()
	if c != nil {
		c(errCauseCancelled)
	}
}

func (rn *runner) claimLoop() {
	defer rn.wg.Done()
	o := rn.x.opts
	for {
		select {
		case rn.slots <- struct{}{}:
		case <-rn.ctx.Done():
			return
		}
		if rn.ctx.Err() != nil { // both were ready: claim nothing once stopping
			return
		}
		asked := time.Now() // the lease lasts LeaseDuration from no earlier than this
		t, err := rn.x.store.ClaimNext(rn.ctx, o.WorkerID, o.LeaseDuration)
		if err != nil || t == nil {
			<-rn.slots
			if err != nil && rn.ctx.Err() == nil {
				o.Logger.Error("tasks: cannot claim work", "err", err)
			}
			timer := time.NewTimer(o.ClaimInterval)
			select {
			case <-rn.wakeCh:
			case <-timer.C:
			case <-rn.ctx.Done():
			}
			timer.Stop()
			continue
		}
		rn.wg.Add(1)
		go func() {
			defer rn.wg.Done()
			defer func() { <-rn.slots }()
			defer func() {
				// A panic here is a store's (handler panics are RunTool's): the process
				// goes on, and the lease runs out for another attempt.
				if p := recover(); p != nil {
					o.Logger.Error("tasks: worker panicked", "task", t.ID, "panic", p, "stack", string(debug.Stack()))
				}
			}()
			rn.work(t, asked)
		}()
	}
}

func (rn *runner) reapLoop() {
	defer rn.wg.Done()
	tick := time.NewTicker(rn.x.opts.ReapInterval)
	defer tick.Stop()
	for {
		select {
		case <-rn.ctx.Done():
			return
		case <-tick.C:
		}
		for {
			n, err := rn.x.store.Reap(rn.ctx, reapBatch)
			if err != nil && rn.ctx.Err() == nil {
				rn.x.opts.Logger.Error("tasks: cannot reap", "err", err)
			}
			if err != nil || n < reapBatch {
				break
			}
		}
	}
}
