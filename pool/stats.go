package pool

// Stats is a snapshot of an Executor.
type Stats struct {
	// Running is the number of jobs whose Run has not returned, including
	// cancelled or timed-out jobs that are still running.
	Running int
	// Queued is the number of jobs waiting for a worker.
	Queued int
	// MaxConcurrency and MaxQueue are the resolved limits (MaxQueue is 0 with
	// [NoQueue]).
	MaxConcurrency int
	MaxQueue       int
	// SlotsInUse and MaxSlots describe [Executor.Slots].
	SlotsInUse int
	MaxSlots   int

	// Admitted counts the jobs Submit accepted; Rejected the submissions
	// refused with [ErrOverloaded].
	Admitted uint64
	Rejected uint64
	// Completed, Failed, Cancelled and TimedOut count decided outcomes; a job
	// whose submitter's context ended counts as Cancelled. Panicked counts the
	// Runs that panicked (or called runtime.Goexit); each is also Failed,
	// unless its outcome had been decided before.
	Completed uint64
	Failed    uint64
	Cancelled uint64
	TimedOut  uint64
	Panicked  uint64
}

// counters are the cumulative counts of an Executor, guarded by its mutex.
type counters struct {
	admitted, rejected                     uint64
	completed, failed, cancelled, timedOut uint64
	panicked                               uint64
}

func (c *counters) count(o Outcome) {
	switch o {
	case Completed:
		c.completed++
	case Failed:
		c.failed++
	case Cancelled:
		c.cancelled++
	case TimedOut:
		c.timedOut++
	}
}

// Stats returns a snapshot of e's state, limits and counters.
func (e *Executor) Stats() Stats {
	inUse := e.slots.InUse()
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.counters
	return Stats{
		Running:        e.running,
		Queued:         e.queue.n,
		MaxConcurrency: e.cfg.maxRunning,
		MaxQueue:       e.cfg.maxQueue,
		SlotsInUse:     inUse,
		MaxSlots:       e.slots.max,
		Admitted:       c.admitted,
		Rejected:       c.rejected,
		Completed:      c.completed,
		Failed:         c.failed,
		Cancelled:      c.cancelled,
		TimedOut:       c.timedOut,
		Panicked:       c.panicked,
	}
}
