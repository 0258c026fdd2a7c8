package streamable

import (
	"bytes"
	"sync"
	"sync/atomic"
)

// inflight is the endpoint's registry of running initialize-era requests, for
// notifications/cancelled: a legacy client cancels by request id, in a separate POST, and
// without sessions the only scope the endpoint has for an id is the caller's principal (""
// when unauthenticated). A key is principal plus the id's JSON literal (1 and "1" differ, as
// do "a" and "\u0061").
//
// Registering is on every legacy request's path and cancelling is rare, so the registry is
// shaped for the first: each job belongs to one of inflightShards lists, picked when the job
// was made (not by its key: clients number their requests alike, so keys collide across
// clients, and one shard per key would make them all contend), and is linked in and out
// under that shard's lock alone, allocating nothing. A cancel takes every shard's lock and
// walks them all.
type inflight struct {
	shards [inflightShards]inflightShard
}

const inflightShards = 16

type inflightShard struct {
	mu   sync.Mutex
	head *job
	_    [48]byte // one shard per cache line
}

// nextShard spreads jobs over the shards as they are made.
var nextShard atomic.Uint32

func shardOfNewJob() uint8 { return uint8(nextShard.Add(1) % inflightShards) }

func newInflight() *inflight { return &inflight{} }

// add registers j, a legacy request whose id and principal are final.
func (t *inflight) add(j *job) {
	s := &t.shards[j.regShard]
	s.mu.Lock()
	j.regPrev, j.regNext, j.registered = nil, s.head, true
	if s.head != nil {
		s.head.regPrev = j
	}
	s.head = j
	s.mu.Unlock()
}

// remove unregisters j if it is registered. The HTTP side calls it before it lets go of the
// job, so a cancel never reaches a job that answers another request since.
func (t *inflight) remove(j *job) {
	if !j.registered {
		return
	}
	s := &t.shards[j.regShard]
	s.mu.Lock()
	if j.regPrev == nil {
		s.head = j.regNext
	} else {
		j.regPrev.regNext = j.regNext
	}
	if j.regNext != nil {
		j.regNext.regPrev = j.regPrev
	}
	s.mu.Unlock()
	j.regPrev, j.regNext, j.registered = nil, nil, false
}

// cancel calls fn on the one running request of principal with the id literal id, under the
// registry's locks (so the job is not let go of meanwhile), and reports whether there was
// exactly one. Two requests in flight under the same key are ambiguous: neither is cancelled.
func (t *inflight) cancel(principal string, id []byte, fn func(*job)) bool {
	for i := range t.shards {
		t.shards[i].mu.Lock()
	}
	defer func() {
		for i := range t.shards {
			t.shards[i].mu.Unlock()
		}
	}()
	var found *job
	for i := range t.shards {
		for j := t.shards[i].head; j != nil; j = j.regNext {
			if j.principal() != principal || !bytes.Equal(j.msg.ID().Raw(), id) {
				continue
			}
			if found != nil {
				return false
			}
			found = j
		}
	}
	if found == nil {
		return false
	}
	fn(found)
	return true
}
