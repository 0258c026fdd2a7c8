package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
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
			rn.work(t)
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

// runState is what a run's handler can tell the runner (see RetryLater).
type runState struct {
	attempt int
	retry   atomic.Bool // a handler's Timeout wrapper may let it outlive the run
}

type runKey struct{}

// work runs one claimed task and stores how it ended.
func (rn *runner) work(t *Task) {
	o := rn.x.opts
	gen := t.LeaseGen
	ctx, cancel := context.WithCancelCause(rn.ctx)
	defer cancel(nil)
	rn.mu.Lock()
	rn.running[t.ID] = cancel
	rn.mu.Unlock()
	defer func() {
		rn.mu.Lock()
		delete(rn.running, t.ID)
		rn.mu.Unlock()
	}()
	if t.CancelRequested {
		rn.finish(t, gen, cancelled)
		return
	}

	renewed := rn.renew(ctx, cancel, t.ID, gen)
	rs := &runState{attempt: t.Attempt}
	runCtx, stopRuntime := context.WithTimeoutCause(ctx, o.MaxRuntime, errCauseRuntime)
	runCtx = context.WithValue(runCtx, idKey{}, t.ID)
	runCtx = context.WithValue(runCtx, runKey{}, rs)
	runCtx = fastmcp.WithIdentity(runCtx, &fastmcp.Identity{Principal: t.Scope})
	out := rn.x.srv.RunTool(runCtx, fastmcp.ToolRun{
		Tool: t.Work.Tool, Arguments: t.Work.Arguments, Meta: t.Work.Meta, InputResponses: t.Responses,
	})
	runtimeOver := errors.Is(context.Cause(runCtx), errCauseRuntime)
	stopRuntime()
	cancel(nil)
	<-renewed

	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errCauseLeaseLost):
		return // another worker may own the task: it is not ours to write
	case errors.Is(cause, errCauseCancelled):
		rn.finish(t, gen, cancelled)
		return
	case rn.ctx.Err() != nil && out.Err != nil:
		rn.release(t.ID, gen) // interrupted by shutdown: the next process runs it again
		return
	}
	switch {
	case runtimeOver:
		rn.finish(t, gen, failedWith(errRuntime))
	case out.Result != nil:
		result := out.Result
		rn.finish(t, gen, func(t *Task) error {
			t.Status, t.StatusMessage, t.Result = StatusCompleted, "", result
			return nil
		})
	case out.Input != nil:
		rn.finish(t, gen, inputRequired(out.Input))
	case rs.retry.Load() && t.Attempt-1 < len(o.Retry.Delays):
		delay := o.Retry.Delays[t.Attempt-1]
		rn.finish(t, gen, func(t *Task) error {
			t.NotBefore = time.Now().Add(delay)
			t.StatusMessage = out.Err.Message
			return nil
		})
		rn.wakeAfter(delay)
	default:
		rn.finish(t, gen, failedWith(out.Err))
	}
}

// renew extends the lease every third of it until ctx ends, and ends the run when the lease
// is lost or cancellation was requested (by a tasks/cancel served by another process).
func (rn *runner) renew(ctx context.Context, cancel context.CancelCauseFunc, id string, gen int64) <-chan struct{} {
	done := make(chan struct{})
	lease := rn.x.opts.LeaseDuration
	rn.wg.Add(1)
	go func() {
		defer rn.wg.Done()
		defer close(done)
		tick := time.NewTicker(lease / 3)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			cancelRequested, err := rn.x.store.Renew(ctx, id, gen, lease)
			switch {
			case errors.Is(err, ErrLeaseLost):
				cancel(errCauseLeaseLost)
				return
			case err != nil:
				if ctx.Err() == nil {
					rn.x.opts.Logger.Error("tasks: cannot renew a lease", "task", id, "err", err)
				}
			case cancelRequested:
				cancel(errCauseCancelled)
				return
			}
		}
	}()
	return done
}

func cancelled(t *Task) error {
	t.Status, t.StatusMessage, t.InputRequests = StatusCancelled, "Task cancelled", nil
	return nil
}

// failedWith sets the failed state with the JSON-RPC error e.
func failedWith(e *fastmcp.Error) func(*Task) error {
	return func(t *Task) error {
		if e == nil {
			e = fastmcp.ErrInternal
		}
		b := append([]byte(`{"code":`), []byte(itoa(int64(e.Code)))...)
		b = append(b, `,"message":`...)
		b = decode.AppendString(b, e.Message, false)
		if len(e.Data) > 0 {
			b = append(b, `,"data":`...)
			b = append(b, compact(e.Data)...)
		}
		t.Status, t.StatusMessage, t.Error = StatusFailed, e.Message, append(b, '}')
		t.InputRequests = nil
		return nil
	}
}

// inputRequired sets the input_required state with the handler's requests. Keys stay
// unique over the task's lifetime: asking again for an answered key fails the task.
func inputRequired(ir *fastmcp.InputRequired) func(*Task) error {
	return func(t *Task) error {
		answered := members(t.Responses)
		reqs := map[string]json.RawMessage{}
		for k, req := range ir.Requests {
			if _, done := answered[k]; done {
				return errReasked
			}
			b := append([]byte(`{"method":`), decode.AppendString(nil, req.Method, false)...)
			b = append(b, `,"params":`...)
			b = append(b, compact(req.Params)...)
			reqs[k] = append(b, '}')
			if !contains(t.Keys, k) {
				t.Keys = append(t.Keys, k)
			}
		}
		t.Status, t.StatusMessage, t.InputRequests = StatusInputRequired, "Input required", marshalMembers(reqs)
		return nil
	}
}

// finish writes how a run ended with a write fenced by the run's lease, then releases the
// lease. A concurrent write (tasks/cancel) wins: a terminal task is left alone, a task whose
// cancellation was requested becomes cancelled.
func (rn *runner) finish(t *Task, gen int64, change func(*Task) error) {
	ctx := context.WithoutCancel(rn.ctx)
	for range maxCASAttempts {
		next := *t
		if err := change(&next); err != nil {
			var e *fastmcp.Error
			if !errors.As(err, &e) {
				e = fastmcp.ErrInternal
			}
			next = *t
			_ = failedWith(e)(&next)
		}
		next.UpdatedAt = now()
		err := rn.x.store.Put(ctx, &next, gen)
		switch {
		case err == nil:
			rn.x.pub.publish(&next)
			rn.release(t.ID, gen)
			return
		case errors.Is(err, ErrConflict):
			fresh, gerr := rn.x.store.Get(ctx, t.ID)
			if gerr != nil || fresh.Status.Terminal() {
				rn.release(t.ID, gen)
				return
			}
			if fresh.CancelRequested {
				change = cancelled
			}
			t = fresh
		default: // ErrLeaseLost: another worker owns it now
			if !errors.Is(err, ErrLeaseLost) {
				rn.x.opts.Logger.Error("tasks: cannot store a run's outcome", "task", t.ID, "err", err)
			}
			return
		}
	}
}

func (rn *runner) release(id string, gen int64) {
	if err := rn.x.store.Release(context.WithoutCancel(rn.ctx), id, gen); err != nil && !errors.Is(err, ErrLeaseLost) && !errors.Is(err, ErrNotFound) {
		rn.x.opts.Logger.Error("tasks: cannot release a lease", "task", id, "err", err)
	}
}

// RetryLater asks, from a task's handler, for the work to run again after the next delay of
// Options.Retry; it returns the error the handler returns. Once the delays are used up the
// task fails with a -32603 error carrying message. Outside a task it only returns the error.
func RetryLater(ctx context.Context, message string) error {
	if rs, ok := ctx.Value(runKey{}).(*runState); ok {
		rs.retry.Store(true)
	}
	return fastmcp.NewError(fastmcp.CodeInternalError, message, nil)
}
