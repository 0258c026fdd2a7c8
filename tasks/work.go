package tasks

import (
	"context"
	"errors"
	"time"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// work runs one task claimed at about claimed and stores how it ended.
func (rn *runner) work(t *Task, claimed time.Time) {
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
	if rn.ctx.Err() != nil { // claimed as the runner stopped: the next process runs it
		rn.release(t.ID, gen)
		return
	}
	lease := rn.keepLease(t.ID, gen, claimed, cancel)
	defer lease.stop()
	if t.CancelRequested {
		rn.finish(t, gen, cancelled, lease)
		return
	}

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
	cancel(nil) // the run's cause is settled: the lease is kept until its outcome is stored

	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errCauseLeaseLost):
		return // another worker may own the task: it is not ours to write
	case errors.Is(cause, errCauseCancelled):
		rn.finish(t, gen, cancelled, lease)
		return
	case rn.ctx.Err() != nil && out.Err != nil:
		rn.release(t.ID, gen) // interrupted by shutdown: the next process runs it again
		return
	}
	switch {
	case runtimeOver:
		rn.finish(t, gen, failedWith(errRuntime), lease)
	case out.Result != nil:
		result := out.Result
		rn.finish(t, gen, func(t *Task) error {
			t.Status, t.StatusMessage, t.Result = StatusCompleted, "", result
			return nil
		}, lease)
	case out.Input != nil:
		rn.finish(t, gen, inputRequired(out.Input), lease)
	case rs.retry.Load() && t.Attempt-1 < len(o.Retry.Delays):
		delay := o.Retry.Delays[t.Attempt-1]
		rn.finish(t, gen, func(t *Task) error {
			t.NotBefore = time.Now().Add(delay)
			t.StatusMessage = out.Err.Message
			return nil
		}, lease)
		rn.wakeAfter(delay)
	default:
		rn.finish(t, gen, failedWith(out.Err), lease)
	}
}
