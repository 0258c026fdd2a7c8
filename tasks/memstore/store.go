package memstore

import (
	"context"
	"sync"
	"time"

	"github.com/fastmcp-go/fastmcp/tasks"
)

// Config configures a Store.
type Config struct {
	// Now is the store's clock; nil means time.Now.
	Now func() time.Time
}

// Store keeps tasks in a map under one mutex. It is safe for concurrent use.
type Store struct {
	now func() time.Time

	mu     sync.Mutex
	tasks  map[string]*tasks.Task
	active map[string]int // non-terminal tasks per scope
}

var _ tasks.Store = (*Store)(nil)

// New returns an empty Store.
func New(cfg Config) *Store {
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	return &Store{now: now, tasks: map[string]*tasks.Task{}, active: map[string]int{}}
}

// Create implements [tasks.Store].
func (s *Store) Create(_ context.Context, t *tasks.Task, lim tasks.Limits) error {
	maxTasks, maxActive := lim.Bounds()
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if old, ok := s.tasks[t.ID]; ok {
		if !expired(old, now) {
			return tasks.ErrExists
		}
		s.remove(old)
	}
	if len(s.tasks) >= maxTasks {
		s.removeExpired(now, "", false)
		if len(s.tasks) >= maxTasks {
			return &tasks.CapacityError{Limit: "MaxTasks"}
		}
	}
	if !t.Status.Terminal() && s.active[t.Scope] >= maxActive {
		s.removeExpired(now, t.Scope, true)
		if s.active[t.Scope] >= maxActive {
			return &tasks.CapacityError{Limit: "MaxActivePerScope"}
		}
	}
	if t.CreatedAt.IsZero() {
		t.CreatedAt = now
	}
	if t.UpdatedAt.IsZero() {
		t.UpdatedAt = t.CreatedAt
	}
	t.LeaseOwner, t.LeaseGen, t.LeaseUntil = "", 0, time.Time{}
	t.Revision = 1
	s.tasks[t.ID] = clone(t)
	if !t.Status.Terminal() {
		s.active[t.Scope]++
	}
	return nil
}

// Get implements [tasks.Store].
func (s *Store) Get(_ context.Context, id string) (*tasks.Task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.live(id)
	if err != nil {
		return nil, err
	}
	return clone(st), nil
}

// Put implements [tasks.Store].
func (s *Store) Put(_ context.Context, t *tasks.Task, fence int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.live(t.ID)
	if err != nil {
		return err
	}
	if st.Status.Terminal() {
		return tasks.ErrConflict
	}
	if fence > 0 && !leaseHeld(st, fence, s.now()) {
		return tasks.ErrLeaseLost
	}
	if st.Revision != t.Revision {
		return tasks.ErrConflict
	}
	next := clone(t)
	next.Scope, next.CreatedAt = st.Scope, st.CreatedAt
	if next.UpdatedAt.IsZero() {
		next.UpdatedAt = st.UpdatedAt
	}
	next.LeaseOwner, next.LeaseGen, next.LeaseUntil = st.LeaseOwner, st.LeaseGen, st.LeaseUntil
	next.Revision = st.Revision + 1
	if next.Status.Terminal() {
		s.active[st.Scope]--
	}
	s.tasks[t.ID] = next
	t.Revision = next.Revision
	return nil
}

// Close implements [tasks.Store]; the store stays usable.
func (s *Store) Close() error { return nil }

// live returns the stored task with id unless it is missing or expired.
func (s *Store) live(id string) (*tasks.Task, error) {
	st, ok := s.tasks[id]
	if !ok || expired(st, s.now()) {
		return nil, tasks.ErrNotFound
	}
	return st, nil
}

func (s *Store) remove(st *tasks.Task) {
	delete(s.tasks, st.ID)
	if !st.Status.Terminal() {
		s.active[st.Scope]--
		if s.active[st.Scope] == 0 {
			delete(s.active, st.Scope)
		}
	}
}

// removeExpired deletes every expired task, or only those of scope when byScope.
func (s *Store) removeExpired(now time.Time, scope string, byScope bool) {
	for _, st := range s.tasks {
		if (!byScope || st.Scope == scope) && expired(st, now) {
			s.remove(st)
		}
	}
}

func expired(t *tasks.Task, now time.Time) bool {
	return t.TTL > 0 && !now.Before(t.CreatedAt.Add(t.TTL))
}

func leaseHeld(t *tasks.Task, fence int64, now time.Time) bool {
	return t.LeaseGen == fence && now.Before(t.LeaseUntil)
}
