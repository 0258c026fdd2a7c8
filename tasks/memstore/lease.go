package memstore

import (
	"context"
	"time"

	"github.com/fastmcp-go/fastmcp/tasks"
)

// ClaimNext implements [tasks.Store]: of the runnable tasks it leases the one created first.
func (s *Store) ClaimNext(_ context.Context, worker string, leaseFor time.Duration) (*tasks.Task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	var next *tasks.Task
	for _, st := range s.tasks {
		if runnable(st, now) && (next == nil || st.CreatedAt.Before(next.CreatedAt) ||
			st.CreatedAt.Equal(next.CreatedAt) && st.ID < next.ID) {
			next = st
		}
	}
	if next == nil {
		return nil, nil
	}
	next.LeaseOwner, next.LeaseUntil = worker, now.Add(leaseFor)
	next.LeaseGen++
	next.Attempt++
	next.Revision++
	return clone(next), nil
}

// Renew implements [tasks.Store].
func (s *Store) Renew(_ context.Context, id string, fence int64, leaseFor time.Duration) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.live(id)
	if err != nil {
		return false, err
	}
	now := s.now()
	if !leaseHeld(st, fence, now) {
		return false, tasks.ErrLeaseLost
	}
	st.LeaseUntil = now.Add(leaseFor)
	return st.CancelRequested, nil
}

// Release implements [tasks.Store].
func (s *Store) Release(_ context.Context, id string, fence int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.live(id)
	if err != nil {
		return err
	}
	if st.LeaseGen != fence || st.LeaseOwner == "" {
		return tasks.ErrLeaseLost
	}
	st.LeaseOwner, st.LeaseUntil = "", time.Time{}
	return nil
}

// Reap implements [tasks.Store].
func (s *Store) Reap(_ context.Context, limit int) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	n := 0
	for _, st := range s.tasks {
		if n >= limit {
			break
		}
		if expired(st, now) {
			s.remove(st)
			n++
		}
	}
	return n, nil
}

// runnable reports whether a worker may claim t now: working, no live lease, not cancelled
// (a leased task's cancellation is its worker's to finish), NotBefore passed, not expired.
func runnable(t *tasks.Task, now time.Time) bool {
	return t.Status == tasks.StatusWorking && !t.CancelRequested && !expired(t, now) &&
		!now.Before(t.LeaseUntil) && !now.Before(t.NotBefore)
}
