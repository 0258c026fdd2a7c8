package streamable

import (
	"bytes"
	"hash/maphash"
	"sync"
)

// inflight is the endpoint's registry of running initialize-era requests, for
// notifications/cancelled: a legacy client cancels by request id, in a separate POST, and
// without sessions the only scope the endpoint has for an id is the caller's principal (""
// when unauthenticated). Keys are principal plus the id's JSON literal (1 and "1" differ, as
// do "a" and "\u0061"). Jobs are chained through job.regNext per 64-bit hash in one of
// inflightShards maps, so registering costs a hash, one uncontended lock and a map write,
// and allocates nothing once the maps have grown to the endpoint's concurrency.
type inflight struct {
	seed   maphash.Seed
	shards [inflightShards]inflightShard
}

const inflightShards = 16

type inflightShard struct {
	mu sync.Mutex
	m  map[uint64]*job
	_  [40]byte // one shard per cache line
}

func newInflight() *inflight {
	t := &inflight{seed: maphash.MakeSeed()}
	for i := range t.shards {
		t.shards[i].m = make(map[uint64]*job, 64)
	}
	return t
}

func (t *inflight) hash(principal string, id []byte) uint64 {
	return maphash.String(t.seed, principal) ^ maphash.Bytes(t.seed, id)*0x9e3779b97f4a7c15
}

func (t *inflight) shard(h uint64) *inflightShard { return &t.shards[h>>60] }

// add registers j, a legacy request whose id and principal are final.
func (t *inflight) add(j *job) {
	h := t.hash(j.principal(), j.msg.ID().Raw())
	s := t.shard(h)
	s.mu.Lock()
	j.regHash, j.regNext, j.registered = h, s.m[h], true
	s.m[h] = j
	s.mu.Unlock()
}

// remove unregisters j if it is registered. The HTTP side calls it before it lets go of the
// job, so a cancel never reaches a job that answers another request since.
func (t *inflight) remove(j *job) {
	if !j.registered {
		return
	}
	s := t.shard(j.regHash)
	s.mu.Lock()
	p := s.m[j.regHash]
	if p == j {
		if j.regNext == nil {
			delete(s.m, j.regHash)
		} else {
			s.m[j.regHash] = j.regNext
		}
	} else {
		for p != nil && p.regNext != j {
			p = p.regNext
		}
		if p != nil {
			p.regNext = j.regNext
		}
	}
	s.mu.Unlock()
	j.regNext, j.registered = nil, false
}

// cancel calls fn on the one running request of principal with the id literal id, under the
// shard's lock (so the job is not let go of meanwhile), and reports whether there was exactly
// one. Two requests in flight under the same key are ambiguous: neither is cancelled.
func (t *inflight) cancel(principal string, id []byte, fn func(*job)) bool {
	h := t.hash(principal, id)
	s := t.shard(h)
	s.mu.Lock()
	defer s.mu.Unlock()
	var found *job
	for j := s.m[h]; j != nil; j = j.regNext {
		if j.principal() != principal || !bytes.Equal(j.msg.ID().Raw(), id) {
			continue
		}
		if found != nil {
			return false
		}
		found = j
	}
	if found == nil {
		return false
	}
	fn(found)
	return true
}
