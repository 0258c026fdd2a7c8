package pool

// jobList is an intrusive doubly linked list of jobs: the FIFO queue, and
// the set of running jobs. A job is in at most one list. It never allocates.
// The Executor's mutex guards it.
type jobList struct {
	head, tail *job
	n          int
}

// pushBack appends j.
func (l *jobList) pushBack(j *job) {
	j.prev, j.next = l.tail, nil
	if l.tail == nil {
		l.head = j
	} else {
		l.tail.next = j
	}
	l.tail = j
	l.n++
}

// popFront removes and returns the first job, or nil.
func (l *jobList) popFront() *job {
	j := l.head
	if j != nil {
		l.remove(j)
	}
	return j
}

// remove unlinks j, which must be in l.
func (l *jobList) remove(j *job) {
	if j.prev == nil {
		l.head = j.next
	} else {
		j.prev.next = j.next
	}
	if j.next == nil {
		l.tail = j.prev
	} else {
		j.next.prev = j.prev
	}
	j.prev, j.next = nil, nil
	l.n--
}
