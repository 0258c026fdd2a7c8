package streamable

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fastmcp/transport"
)

// inflightJob is a registered job of principal with the id literal id, in the inflight shard
// shard.
func inflightJob(t *testing.T, ep *endpoint, principal, id string, shard uint8) *job {
	t.Helper()
	j := acquireJob(ep)
	j.regShard = shard
	t.Cleanup(j.release)
	j.body = append(j.body[:0], `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`...)
	require.NoError(t, ep.core.Decoder().Decode(&j.msg, j.body))
	if principal != "" {
		j.identity = &fastmcp.Identity{Principal: principal}
	}
	j.state.Dialect, j.rules = fastmcp.Legacy20251125, transport.RulesOf(fastmcp.Legacy20251125)
	ep.inflight.add(j)
	return j
}

// The registry finds a request by principal and id literal in any shard, refuses an ambiguous
// key (within a shard and across shards), and unlinks a job from anywhere in its shard's list.
func TestInflight(t *testing.T) {
	ep, err := newEndpoint(newCore(t), Config{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ep.close(t.Context()) })
	var hit *job
	find := func(principal, id string) bool {
		hit = nil
		return ep.inflight.cancel(principal, []byte(id), func(j *job) { hit = j })
	}
	a := inflightJob(t, ep, "alice", `"x"`, 3)
	assert.True(t, find("alice", `"x"`))
	assert.Same(t, a, hit)
	assert.False(t, find("bob", `"x"`), "another principal")
	assert.False(t, find("alice", `x`), "another literal")
	assert.False(t, find("", `"x"`))

	b := inflightJob(t, ep, "alice", `"x"`, 3)
	c := inflightJob(t, ep, "alice", `"x"`, 3)
	assert.False(t, find("alice", `"x"`), "ambiguous: three in flight")
	ep.inflight.remove(b) // the middle of the list
	assert.False(t, find("alice", `"x"`), "still two")
	ep.inflight.remove(c) // its head
	assert.True(t, find("alice", `"x"`))
	assert.Same(t, a, hit)
	ep.inflight.remove(a)
	assert.False(t, find("alice", `"x"`))
	ep.inflight.remove(a) // twice is harmless
	for i := range ep.inflight.shards {
		assert.Nil(t, ep.inflight.shards[i].head)
	}

	ep.inflight.add(a)
	d := inflightJob(t, ep, "alice", `"x"`, 9)
	assert.False(t, find("alice", `"x"`), "ambiguous across shards")
	ep.inflight.remove(d)
	ep.inflight.remove(a)

	n := inflightJob(t, ep, "", "7", 0)
	assert.True(t, find("", "7"))
	assert.Same(t, n, hit)
}

// Registering and unregistering a request allocates nothing once the shard has grown.
func TestInflightAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	ep, err := newEndpoint(newCore(t), Config{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ep.close(t.Context()) })
	j := inflightJob(t, ep, "alice", "1", 5)
	ep.inflight.remove(j)
	assert.Zero(t, testing.AllocsPerRun(1000, func() {
		ep.inflight.add(j)
		ep.inflight.remove(j)
	}))
	runtime.KeepAlive(j)
}
