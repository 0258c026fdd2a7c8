package tasks_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/memstore"
	"github.com/fastmcp-go/fastmcp/tasks/sqlitestore"
)

// errDiskFull is the injected failure of a store write.
var errDiskFull = errors.New("injected: database or disk is full")

// faultyStore is a real store (memstore) whose writes fail while told to: fault injection
// around it, not a mock. outcomes fails the runner's fenced Puts (how a run ended); writes
// fails every write (Create, Put, ClaimNext, Renew, Release: a full disk). It records when
// each fenced Put was tried.
type faultyStore struct {
	tasks.Store
	mu       sync.Mutex
	outcomes bool
	writes   bool
	fenced   []time.Time
}

func newFaultyStore(inner tasks.Store) *faultyStore { return &faultyStore{Store: inner} }

func (s *faultyStore) fail(outcomes, writes bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.outcomes, s.writes = outcomes, writes
}

// fencedPuts returns when each fenced Put was tried, relative to start.
func (s *faultyStore) fencedPuts(start time.Time) []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	var d []time.Duration
	for _, at := range s.fenced {
		d = append(d, at.Sub(start))
	}
	return d
}

func (s *faultyStore) failing(fenced bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if fenced {
		s.fenced = append(s.fenced, time.Now())
	}
	return s.writes || (fenced && s.outcomes)
}

func (s *faultyStore) Create(ctx context.Context, t *tasks.Task, lim tasks.Limits) error {
	if s.failing(false) {
		return errDiskFull
	}
	return s.Store.Create(ctx, t, lim)
}

func (s *faultyStore) Put(ctx context.Context, t *tasks.Task, fence int64) error {
	if s.failing(fence > 0) {
		return errDiskFull
	}
	return s.Store.Put(ctx, t, fence)
}

func (s *faultyStore) ClaimNext(ctx context.Context, worker string, leaseFor time.Duration) (*tasks.Task, error) {
	if s.failing(false) {
		return nil, errDiskFull
	}
	return s.Store.ClaimNext(ctx, worker, leaseFor)
}

func (s *faultyStore) Renew(ctx context.Context, id string, fence int64, leaseFor time.Duration) (bool, error) {
	if s.failing(false) {
		return false, errDiskFull
	}
	return s.Store.Renew(ctx, id, fence, leaseFor)
}

func (s *faultyStore) Release(ctx context.Context, id string, fence int64) error {
	if s.failing(false) {
		return errDiskFull
	}
	return s.Store.Release(ctx, id, fence)
}

// commitCase is a task whose run finishes while the store fails: the hold tool of
// testTools, counted by its gate.
type commitCase struct {
	*harness
	store *faultyStore
	gate  *gate
	logs  *lockedLog
	start time.Time // when the run returned its result
}

type lockedLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// finishWhileFailing creates a task, lets its run return once the store (a memstore) fails
// as told, and returns when the runner's first try to store the result failed.
func finishWhileFailing(t *testing.T, outcomes, writes bool) *commitCase {
	return finishWhileFailingOn(t, memstore.New(memstore.Config{}), outcomes, writes)
}

func finishWhileFailingOn(t *testing.T, inner tasks.Store, outcomes, writes bool) *commitCase {
	store := newFaultyStore(inner)
	logs := &lockedLog{}
	g := newGate()
	opts := tasks.Options{Tools: testPolicies(), Logger: slog.New(slog.NewTextHandler(logs, nil))}
	c := &commitCase{harness: newHarnessOn(t, store, opts, testTools(g)), store: store, gate: g, logs: logs}
	assert.Contains(t, c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold",`+metaTasks+`}}`), `"resultType":"task"`)
	<-g.started
	store.fail(outcomes, writes)
	c.start = time.Now()
	g.open()
	synctest.Wait()
	require.Equal(t, []time.Duration{0}, store.fencedPuts(c.start), "the first try failed")
	return c
}

// stored is the task as the store holds it.
func (c *commitCase) stored(t *testing.T) *tasks.Task {
	t.Helper()
	got, err := c.store.Get(t.Context(), "task-1")
	require.NoError(t, err)
	return got
}

// A result the store cannot take waits in memory and is written again after 100 ms,
// doubling to a third of the lease, while renewals keep the lease: once the store takes it
// the task completes, and the tool ran once.
func TestOutcomeRetriedWhileLeaseRenewed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := finishWhileFailing(t, true, false)
		time.Sleep(2 * time.Minute) // four leases of 30 s
		synctest.Wait()
		st := c.stored(t)
		assert.Equal(t, tasks.StatusWorking, st.Status)
		assert.True(t, st.LeaseUntil.After(time.Now()), "the lease is renewed meanwhile")
		ms := time.Millisecond
		backoff := []time.Duration{0, 100 * ms, 300 * ms, 700 * ms, 1500 * ms, 3100 * ms, 6300 * ms, 12700 * ms}
		for at := 22700 * ms; at <= 2*time.Minute; at += 10 * time.Second {
			backoff = append(backoff, at) // capped at LeaseDuration/3
		}
		assert.Equal(t, backoff, c.store.fencedPuts(c.start))

		c.store.fail(false, false)
		time.Sleep(10 * time.Second)
		synctest.Wait()
		st = c.stored(t)
		assert.Equal(t, tasks.StatusCompleted, st.Status)
		assert.JSONEq(t, `{"resultType":"complete","content":[{"type":"text","text":"held task-1"}],`+serverMeta+`}`, string(st.Result))
		assert.Equal(t, 1, st.Attempt, "claimed once")
		assert.Empty(t, c.gate.started, "the tool ran once")
		assert.Empty(t, st.LeaseOwner, "the lease was released")
		assert.Contains(t, c.logs.String(), `msg="tasks: cannot store a run's outcome, retrying while the lease is held"`)
	})
}

// The same over SQLite: the outcome written after the outage is the file's.
func TestOutcomeRetriedOverSQLite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, err := sqlitestore.Open(t.Context(), filepath.Join(t.TempDir(), "tasks.db"), sqlitestore.Config{})
		require.NoError(t, err)
		c := finishWhileFailingOn(t, s, true, false)
		time.Sleep(time.Minute)
		synctest.Wait()
		assert.Equal(t, tasks.StatusWorking, c.stored(t).Status)
		c.store.fail(false, false)
		time.Sleep(10 * time.Second)
		synctest.Wait()
		st := c.stored(t)
		assert.Equal(t, tasks.StatusCompleted, st.Status)
		assert.Equal(t, 1, st.Attempt)
		assert.Empty(t, c.gate.started, "the tool ran once")
	})
}

// A full disk for less than the lease (every write failing, renewals too): the lease
// still holds when the store recovers, and the result is written; the tool ran once.
func TestOutcomeSurvivesAShortWriteOutage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := finishWhileFailing(t, false, true)
		time.Sleep(15 * time.Second)
		c.store.fail(false, false)
		time.Sleep(10 * time.Second)
		synctest.Wait()
		st := c.stored(t)
		assert.Equal(t, tasks.StatusCompleted, st.Status)
		assert.Equal(t, 1, st.Attempt)
		assert.Empty(t, c.gate.started, "the tool ran once")
	})
}

// The bound: a store that takes no write for longer than the lease loses it (renewals are
// writes), as a dead process does. The outcome is dropped once the store reports the lease
// lost, and the work runs again.
func TestOutcomeDroppedWhenLeaseRunsOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := finishWhileFailing(t, false, true)
		time.Sleep(time.Minute)
		c.store.fail(false, false)
		time.Sleep(time.Minute)
		synctest.Wait()
		st := c.stored(t)
		assert.Equal(t, tasks.StatusCompleted, st.Status)
		assert.Equal(t, 2, st.Attempt)
		assert.Len(t, c.gate.started, 1, "the tool ran again")
		assert.Contains(t, c.logs.String(), `msg="tasks: a run's outcome was not stored; the work will run again" task=task-1 reason="lease ran out"`)
	})
}

// The bound at shutdown: Close does not wait for a store that cannot take the outcome. The
// lease is released (the store takes that write), and the next process runs the work again.
func TestOutcomeDroppedAtShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := finishWhileFailing(t, true, false)
		time.Sleep(time.Minute)
		require.NoError(t, c.x.Close())
		assert.Contains(t, c.logs.String(), `msg="tasks: a run's outcome was not stored; the work will run again" task=task-1 reason=shutdown`)
		st := c.stored(t)
		assert.Equal(t, tasks.StatusWorking, st.Status)
		assert.Empty(t, st.LeaseOwner, "released")

		c.store.fail(false, false)
		srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "test", Version: "1.0.0"}, nil)
		require.NoError(t, err)
		testTools(c.gate)(srv)
		next, err := tasks.New(c.store, tasks.Options{Tools: testPolicies(), Logger: slog.New(slog.NewTextHandler(c.logs, nil))})
		require.NoError(t, err)
		next.Register(srv)
		defer next.Close()
		<-c.gate.started
		synctest.Wait()
		st = c.stored(t)
		assert.Equal(t, tasks.StatusCompleted, st.Status)
		assert.Equal(t, 2, st.Attempt, c.logs.String())
	})
}
