package storetest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks"
)

var expiryCases = []contractCase{
	{"ExpiresAtCreatedAtPlusTTL", testExpiresAtOnce},
	{"ZeroTTLNeverExpires", testZeroTTL},
	{"ReapDeletesExpiredUpToLimit", testReap},
	{"ExpiredTasksFreeCapacity", testExpiredFreeCapacity},
}

// testExpiresAtOnce: readable until CreatedAt+TTL, unknown to every method from that instant,
// before any reaping.
func testExpiresAtOnce(t *testing.T, s tasks.Store, clk Clock) {
	create(t, s, "ttl", func(task *tasks.Task) { task.TTL = time.Minute })
	claimed := claim(t, s, "w")
	clk.Advance(time.Minute - time.Second) // a database's clock runs on between the calls
	get(t, s, "ttl")
	clk.Advance(time.Second)
	_, err := s.Get(ctx(t), "ttl")
	require.ErrorIs(t, err, tasks.ErrNotFound)
	require.ErrorIs(t, s.Put(ctx(t), claimed, 0), tasks.ErrNotFound)
	_, err = s.Renew(ctx(t), "ttl", claimed.LeaseGen, lease)
	require.ErrorIs(t, err, tasks.ErrNotFound)
	require.ErrorIs(t, s.Release(ctx(t), "ttl", claimed.LeaseGen), tasks.ErrNotFound)
	clk.Advance(lease)
	next, err := s.ClaimNext(ctx(t), "w2", lease)
	require.NoError(t, err)
	assert.Nil(t, next, "an expired task is never claimed")
}

func testZeroTTL(t *testing.T, s tasks.Store, clk Clock) {
	create(t, s, "forever", func(task *tasks.Task) { task.TTL = 0 })
	clk.Advance(100_000 * time.Hour)
	get(t, s, "forever")
	n, err := s.Reap(ctx(t), 10)
	require.NoError(t, err)
	assert.Zero(t, n)
}

func testReap(t *testing.T, s tasks.Store, clk Clock) {
	for _, id := range []string{"e1", "e2", "e3"} {
		create(t, s, id, func(task *tasks.Task) { task.TTL = time.Minute })
	}
	create(t, s, "done-expired", func(task *tasks.Task) { task.TTL, task.Status = time.Minute, tasks.StatusCompleted })
	create(t, s, "hour")
	create(t, s, "forever", func(task *tasks.Task) { task.TTL = 0 })
	clk.Advance(2 * time.Minute)
	n, err := s.Reap(ctx(t), 3)
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	n, err = s.Reap(ctx(t), 100)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	n, err = s.Reap(ctx(t), 100)
	require.NoError(t, err)
	assert.Zero(t, n)
	get(t, s, "hour")
	get(t, s, "forever")
}

// testExpiredFreeCapacity: an expired task, reaped or not, no longer counts against a limit.
func testExpiredFreeCapacity(t *testing.T, s tasks.Store, clk Clock) {
	lim := tasks.Limits{MaxTasks: 2, MaxActivePerScope: 1}
	for _, id := range []string{"a", "b"} {
		task := newTask(id)
		task.TTL, task.Scope = time.Minute, id
		require.NoError(t, s.Create(ctx(t), task, lim))
	}
	c := newTask("c")
	require.ErrorAs(t, s.Create(ctx(t), c, lim), new(*tasks.CapacityError))
	clk.Advance(time.Minute)
	require.NoError(t, s.Create(ctx(t), c, lim), "the expired tasks no longer count")
	a2 := newTask("a2")
	a2.Scope = "a"
	require.NoError(t, s.Create(ctx(t), a2, lim), "nor do they count against their scope")
}
