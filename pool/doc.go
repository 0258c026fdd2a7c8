// Package pool is an embeddable executor: bounded admission, a bounded FIFO
// queue, a deadline per job, cancellation by key or by the submitter's
// context, panic isolation and statistics, over a fixed set of
// [github.com/panjf2000/ants/v2] worker goroutines. It knows nothing of
// JSON-RPC or MCP, and can be used on its own.
//
// # Usage
//
//	ex, err := pool.New(pool.Config{MaxConcurrency: 8})
//	if err != nil {
//		return err
//	}
//	defer ex.Close(context.Background())
//
//	err = ex.Submit(ctx, pool.Key{Owner: connID, ID: requestID}, task)
//	switch {
//	case errors.Is(err, pool.ErrOverloaded): // answer "busy" at once
//	case errors.Is(err, pool.ErrDuplicateKey): // the request id is in use
//	}
//	// task.Run runs on a worker; task.Done receives the outcome.
//
// A [Task] has two methods: Run does the work with the job's own context,
// and Done receives the [Result] once: [Completed], [Cancelled], [TimedOut]
// or [Failed]. [Func] adapts a plain function when the outcome is not needed.
//
// # Jobs
//
// A job starts at once when a worker is free and otherwise waits in the
// queue, in submission order; when the queue is full, Submit fails at once
// with [ErrOverloaded]. Its deadline counts from admission, so queue time
// counts; at the deadline the job leaves the queue or its context is
// cancelled with cause [ErrTimeout], and Done receives [TimedOut] without
// waiting for Run to return. [Executor.Cancel] does the same with a reason
// of the caller's choice, visible through context.Cause. When the submitter's
// context ends (its connection died), its queued jobs are dropped and its
// running jobs see their context cancelled, and nothing is delivered.
//
// A panic in Run is recovered: the value and stack are logged with slog, and
// the outcome is [Failed] with [ErrPanicked], which never carries the panic
// text. The worker goes on with the next job.
//
// Go cannot stop a goroutine, so a Run that ignores its context keeps its
// worker, one of the MaxConcurrency places, until it returns, whatever its
// outcome was: [Executor.Running] counts it.
//
// # The end of a job
//
// Run and Done end independently: Done may come first (a timeout or a
// cancellation is delivered while Run goes on), Run may never be called (the
// job left the queue), and Done may never be called (the submitter's context
// ended). A Task that also implements [Releaser] is told when both are over:
// Release is called exactly once for every admitted job, after Run has
// returned or will never start and after Done has returned or will never be
// called, and from then on the executor never calls or touches the task
// again. Run and Done happen before Release, so it sees what they wrote.
// That is the moment to recycle the task: Run and Done need not count each
// other. Release runs on whichever goroutine finishes with the job last; a
// job that was not admitted is never released. Looking for Releaser costs
// one type assertion per job.
//
// # Limits
//
//   - MaxConcurrency, default [DefaultMaxConcurrency] (32): jobs running at
//     once. Beyond it jobs queue.
//   - MaxQueue, default [DefaultMaxQueue] (256); [NoQueue] for none: jobs
//     waiting. Beyond it Submit returns [ErrOverloaded].
//   - DefaultTimeout, default [DefaultTimeout] (30 s); [NoTimeout] for none:
//     the deadline of a job from admission. Past it the outcome is
//     [TimedOut] with [ErrTimeout].
//   - MaxSlots, default [DefaultMaxSlots] (256): slots held at once (see
//     [Slots]). Beyond it [Slots.Acquire] returns [ErrNoSlot].
//
// A zero field means its default, never "unlimited"; invalid values make [New]
// return an error wrapping [ErrInvalidConfig].
//
// # Cost
//
// Submitting costs one 48-byte context per job, allocated eight at a time
// (one allocation per eight jobs), when the Task is a pointer or a [Func];
// records, queue links and the deadline timer are reused, and the clock is
// read once. Contexts are never reused, but one retained after its job ended
// keeps the other seven of its block in memory, with what their submitters'
// contexts refer to. More allocations happen only on demand:
// a job that calls ctx.Done() gets a standard cancellable context (4 more:
// the context, its cancel function, the pair of them and its channel), a
// running job that is cancelled or times out gets one too so that
// context.Cause reports the reason (3 more), and a queued job whose
// submitter's context can end costs 2 more, to watch that context.
package pool
