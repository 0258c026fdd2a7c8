package pool

import "time"

// Deadlines. A timer per job would cost a timer reset and stop per job, and
// reading the clock is slow on some virtual machines, so the executor keeps
// one timer for all jobs: deadlineHeap orders the undecided jobs that have a
// deadline, and the timer is armed for the earliest. Jobs that share a
// timeout (the common case) arrive already in deadline order, so a push is a
// single comparison. When the earliest job finishes the timer is left as it
// is; it fires, finds nothing due, and re-arms for the new earliest.
//
// Most jobs end long before their deadline, so a new job joins the heap only
// if it outlives the timer: it waits on the fresh list (freshList), which
// costs a few int stores where a push costs a pointer store, that is a write
// barrier while the GC marks, and a sift. Each time the timer fires it moves
// the fresh jobs into the heap. The timer is armed no later than the
// earliest deadline of both.
//
// Deadlines are offsets on the monotonic clock from Executor.epoch, so that
// admission reads the clock once (time.Since) instead of twice (time.Now).

// deadlineHeap is a binary min-heap of jobs by ctx.deadline; job.heapIndex
// is each job's position, -1 outside the heap. The Executor's mutex guards
// it.
type deadlineHeap []*job

func (h *deadlineHeap) push(j *job) {
	j.heapIndex = len(*h)
	*h = append(*h, j)
	h.up(j.heapIndex)
}

// remove takes j, which must be in h, out of h.
func (h *deadlineHeap) remove(j *job) {
	s := *h
	i, last := j.heapIndex, len(s)-1
	if i != last {
		s.swap(i, last)
	}
	// s[last] keeps its pointer: records live as long as the Executor, and
	// clearing it would cost a write barrier while the GC is marking.
	*h = s[:last]
	j.heapIndex = -1
	if i != last {
		if !h.down(i) {
			h.up(i)
		}
	}
}

func (h deadlineHeap) less(a, b int) bool { return h[a].ctx.deadline < h[b].ctx.deadline }

func (h deadlineHeap) swap(a, b int) {
	h[a], h[b] = h[b], h[a]
	h[a].heapIndex = a
	h[b].heapIndex = b
}

func (h deadlineHeap) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.less(i, parent) {
			return
		}
		h.swap(i, parent)
		i = parent
	}
}

// down moves element i toward the leaves and reports whether it moved.
func (h deadlineHeap) down(i int) bool {
	start := i
	for {
		small, left := i, 2*i+1
		if left < len(h) && h.less(left, small) {
			small = left
		}
		if right := left + 1; right < len(h) && h.less(right, small) {
			small = right
		}
		if small == i {
			return i != start
		}
		h.swap(i, small)
		i = small
	}
}

// freshList is the list of undecided jobs with a deadline that are not in
// the heap, linked by id (job.freshPrev and freshNext, 0 at the ends).
type freshList struct{ head, tail int }

// scheduleLocked adds j, which has a deadline, to the fresh list and arms
// the timer if j is now the earliest. now is the admission time, read before
// the lock, so the timer never fires before the deadline. e.mu must be held.
func (e *Executor) scheduleLocked(j *job, now time.Duration) {
	j.fresh, j.freshPrev, j.freshNext = true, e.fresh.tail, 0
	if e.fresh.tail == 0 {
		e.fresh.head = j.id
	} else {
		e.recs[e.fresh.tail].freshNext = j.id
	}
	e.fresh.tail = j.id
	if e.timerAt == 0 || j.ctx.deadline < e.timerAt {
		e.armLocked(j.ctx.deadline, now)
	}
}

// unscheduleLocked takes j out of the fresh list or the heap, if it is in
// either. e.mu must be held.
func (e *Executor) unscheduleLocked(j *job) {
	if j.heapIndex >= 0 {
		e.deadlines.remove(j)
		return
	}
	if !j.fresh {
		return
	}
	if j.freshPrev == 0 {
		e.fresh.head = j.freshNext
	} else {
		e.recs[j.freshPrev].freshNext = j.freshNext
	}
	if j.freshNext == 0 {
		e.fresh.tail = j.freshPrev
	} else {
		e.recs[j.freshNext].freshPrev = j.freshPrev
	}
	j.fresh = false
}

// heapFreshLocked moves the fresh jobs into the heap. e.mu must be held.
func (e *Executor) heapFreshLocked() {
	for id := e.fresh.head; id != 0; {
		j := e.recs[id]
		id, j.fresh = j.freshNext, false
		e.deadlines.push(j)
	}
	e.fresh = freshList{}
}

// armLocked makes the timer fire at the offset at. e.mu must be held.
func (e *Executor) armLocked(at, now time.Duration) {
	if e.timer == nil {
		e.timer = time.AfterFunc(at-now, e.expire)
	} else {
		e.timer.Reset(at - now)
	}
	e.timerAt = at
}

// expire runs on the timer: every job past its deadline times out.
func (e *Executor) expire() {
	var buf [16]settlement
	due := buf[:0]
	e.mu.Lock()
	now := time.Since(e.epoch)
	e.timerAt = 0
	e.heapFreshLocked()
	for len(e.deadlines) > 0 && e.deadlines[0].ctx.deadline <= now {
		j := e.deadlines[0]
		due = append(due, settlement{j, e.detachLocked(j, TimedOut)}) // removes j from the heap
	}
	if len(e.deadlines) > 0 {
		e.armLocked(e.deadlines[0].ctx.deadline, now)
	}
	e.mu.Unlock()
	for _, s := range due {
		e.settle(s.j, s.v, Result{Outcome: TimedOut, Err: ErrTimeout}, ctxExpired)
	}
}
