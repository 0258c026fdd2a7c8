package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks"
)

var leaseCases = []contractCase{
	{"ClaimNextNoneRunnable", testClaimNone},
	{"ClaimNextExclusiveUnderConcurrency", testClaimExclusive},
	{"ClaimNextSkipsUnrunnable", testClaimSkips},
	{"LeaseExpiryReclaimFencesOldWorker", testLeaseExpiry},
	{"RenewExtendsAndReportsCancel", testRenew},
	{"RenewAfterExpiry", testRenewAfterExpiry},
	{"ReleaseLetsAnotherClaimAtOnce", testRelease},
	{"FencedPutNeedsLease", testFencedPutUnleased},
}

func testClaimNone(t *testing.T, s tasks.Store, _ Clock) {
	got, err := s.ClaimNext(ctx(t), "w", lease)
	require.NoError(t, err)
	assert.Nil(t, got)
}

// testClaimExclusive: six workers claim twenty tasks at once; every task is claimed exactly
// once, at generation and attempt 1.
func testClaimExclusive(t *testing.T, s tasks.Store, clk Clock) {
	const n = 20
	for i := range n {
		create(t, s, fmt.Sprintf("job-%02d", i))
	}
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		claims = map[string][]*tasks.Task{}
		start  = make(chan struct{})
	)
	for w := range 6 {
		wg.Go(func() {
			<-start
			for {
				got, err := s.ClaimNext(ctx(t), fmt.Sprintf("w%d", w), lease)
				if !assert.NoError(t, err) || got == nil {
					return
				}
				mu.Lock()
				claims[got.ID] = append(claims[got.ID], got)
				mu.Unlock()
			}
		})
	}
	close(start)
	wg.Wait()
	require.Len(t, claims, n)
	for id, c := range claims {
		require.Len(t, c, 1, "task %s claimed more than once", id)
		assert.Equal(t, int64(1), c[0].LeaseGen)
		assert.Equal(t, 1, c[0].Attempt)
		assert.NotEmpty(t, c[0].LeaseOwner)
		assertNear(t, clk.Now().Add(lease), c[0].LeaseUntil)
		stored := get(t, s, id)
		assert.Equal(t, c[0].LeaseOwner, stored.LeaseOwner)
		assert.Equal(t, c[0].Revision, stored.Revision, "the claim returns the stored revision")
	}
}

// testClaimSkips: input_required, terminal, cancelled, delayed (NotBefore) and leased tasks
// are not claimed; a delayed task is once NotBefore passes.
func testClaimSkips(t *testing.T, s tasks.Store, clk Clock) {
	create(t, s, "1-input", func(task *tasks.Task) { task.Status = tasks.StatusInputRequired })
	create(t, s, "2-done", func(task *tasks.Task) { task.Status = tasks.StatusCompleted })
	create(t, s, "3-cancel", func(task *tasks.Task) { task.CancelRequested = true })
	create(t, s, "4-later", func(task *tasks.Task) { task.NotBefore = clk.Now().Add(time.Minute) })
	create(t, s, "5-plain")
	plain, err := s.ClaimNext(ctx(t), "w", time.Hour)
	require.NoError(t, err)
	require.NotNil(t, plain)
	assert.Equal(t, "5-plain", plain.ID)
	none, err := s.ClaimNext(ctx(t), "w", lease)
	require.NoError(t, err)
	require.Nil(t, none, "nothing else is runnable, and the leased task is not claimed again while its lease runs")
	clk.Advance(time.Minute)
	assert.Equal(t, "4-later", claim(t, s, "w").ID)
}

// testLeaseExpiry: a lease that runs out lets another worker claim the task at the next
// generation and attempt; the old worker's Put, Renew and Release are refused.
func testLeaseExpiry(t *testing.T, s tasks.Store, clk Clock) {
	create(t, s, "job")
	first := claim(t, s, "w1")
	clk.Advance(lease)
	second := claim(t, s, "w2")
	assert.Equal(t, "job", second.ID)
	assert.Equal(t, first.LeaseGen+1, second.LeaseGen)
	assert.Equal(t, 2, second.Attempt)
	assert.Equal(t, "w2", second.LeaseOwner)

	first.Status = tasks.StatusCompleted
	require.ErrorIs(t, s.Put(ctx(t), first, first.LeaseGen), tasks.ErrLeaseLost)
	_, err := s.Renew(ctx(t), "job", first.LeaseGen, lease)
	require.ErrorIs(t, err, tasks.ErrLeaseLost)
	require.ErrorIs(t, s.Release(ctx(t), "job", first.LeaseGen), tasks.ErrLeaseLost)

	second.Status = tasks.StatusCompleted
	require.NoError(t, s.Put(ctx(t), second, second.LeaseGen))
	got := get(t, s, "job")
	assert.Equal(t, tasks.StatusCompleted, got.Status)
	assert.Equal(t, "w2", got.LeaseOwner)
}

// testRenew: Renew moves the lease on without a new revision, and reports a cancellation.
func testRenew(t *testing.T, s tasks.Store, clk Clock) {
	create(t, s, "job")
	claimed := claim(t, s, "w")
	clk.Advance(lease * 2 / 3)
	cancel, err := s.Renew(ctx(t), "job", claimed.LeaseGen, lease)
	require.NoError(t, err)
	assert.False(t, cancel)
	clk.Advance(lease * 2 / 3)
	stored := get(t, s, "job")
	assert.Equal(t, claimed.Revision, stored.Revision, "Renew writes no revision")
	assertNear(t, clk.Now().Add(lease/3), stored.LeaseUntil)
	none, err := s.ClaimNext(ctx(t), "w2", lease)
	require.NoError(t, err)
	require.Nil(t, none, "the renewed lease still holds")

	stored.CancelRequested = true
	require.NoError(t, s.Put(ctx(t), stored, 0))
	cancel, err = s.Renew(ctx(t), "job", claimed.LeaseGen, lease)
	require.NoError(t, err)
	assert.True(t, cancel)

	claimed.Revision = stored.Revision
	claimed.Status = tasks.StatusCancelled
	require.NoError(t, s.Put(ctx(t), claimed, claimed.LeaseGen), "the renewed lease fences the worker's write in")
}

func testRenewAfterExpiry(t *testing.T, s tasks.Store, clk Clock) {
	create(t, s, "job")
	claimed := claim(t, s, "w")
	clk.Advance(lease)
	_, err := s.Renew(ctx(t), "job", claimed.LeaseGen, lease)
	require.ErrorIs(t, err, tasks.ErrLeaseLost, "a lease that ran out is not renewed, claimed again or not")
	require.ErrorIs(t, s.Put(ctx(t), claimed, claimed.LeaseGen), tasks.ErrLeaseLost)
}

func testRelease(t *testing.T, s tasks.Store, _ Clock) {
	create(t, s, "job")
	first := claim(t, s, "w1")
	require.NoError(t, s.Release(ctx(t), "job", first.LeaseGen))
	stored := get(t, s, "job")
	assert.Empty(t, stored.LeaseOwner)
	assert.Equal(t, first.Revision, stored.Revision, "Release writes no revision")
	require.ErrorIs(t, s.Release(ctx(t), "job", first.LeaseGen), tasks.ErrLeaseLost, "released already")
	require.ErrorIs(t, s.Put(ctx(t), first, first.LeaseGen), tasks.ErrLeaseLost)
	second := claim(t, s, "w2")
	assert.Equal(t, "job", second.ID)
	assert.Equal(t, first.LeaseGen+1, second.LeaseGen)
}

func testFencedPutUnleased(t *testing.T, s tasks.Store, _ Clock) {
	task := create(t, s, "job")
	require.ErrorIs(t, s.Put(ctx(t), task, 1), tasks.ErrLeaseLost)
	_, err := s.Renew(ctx(t), "job", 1, lease)
	require.ErrorIs(t, err, tasks.ErrLeaseLost)
}
