package tasks

import (
	"context"
	"errors"
	"time"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

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
