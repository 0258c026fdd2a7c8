package transport

import (
	"bytes"
	"sync"
	"sync/atomic"

	"github.com/fastmcp-go/fastmcp/decode"
)

// Cancels is the registry of running requests that notifications/cancelled may name, for a
// transport whose client does not cancel on the connection the request came on (stateless
// HTTP, in a dialect that cancels by id: [Rules].CancelByID): a request is named by a scope
// (the caller's principal, "" when unauthenticated) and its id's JSON literal (1 and "1"
// differ, as do "a" and "\u0061"). The zero Cancels is empty and ready; it is safe for
// concurrent use.
//
// Registering is on every such request's path and cancelling is rare, so the registry is
// shaped for the first: each [Running] belongs to one of a few lists, picked when it is
// first added (not by its key: clients number their requests alike, so keys collide across
// clients, and one list per key would make them all contend), and is linked in and out
// under that list's lock alone, allocating nothing. A cancel takes every list's lock and
// walks them all.
type Cancels struct {
	shards [cancelShards]cancelShard
}

const cancelShards = 16

type cancelShard struct {
	mu   sync.Mutex
	head *Running
	_    [48]byte // one list per cache line
}

// Running is a request in a [Cancels] registry. A transport embeds one in the value it keeps
// per request, so that registering allocates nothing; it may be reused once removed.
type Running struct {
	scope      string
	id         []byte
	owner      Withdrawer
	shard      uint8
	sharded    bool
	registered bool
	prev, next *Running
}

// Withdrawer is what [Cancels.Cancel] calls on the request it names: the transport cancels
// the request's work, and sends no response at all.
type Withdrawer interface {
	Withdraw()
}

// nextShard spreads Running values over the lists as they are first added.
var nextShard atomic.Uint32

// Add registers r under scope and id, the request's id literal, which must stay unchanged
// while r is registered; Cancel calls owner's Withdraw.
func (c *Cancels) Add(r *Running, scope string, id []byte, owner Withdrawer) {
	if !r.sharded {
		r.shard, r.sharded = uint8(nextShard.Add(1)%cancelShards), true
	}
	r.scope, r.id, r.owner = scope, id, owner
	s := &c.shards[r.shard]
	s.mu.Lock()
	r.prev, r.next, r.registered = nil, s.head, true
	if s.head != nil {
		s.head.prev = r
	}
	s.head = r
	s.mu.Unlock()
}

// Remove unregisters r if it is registered. A transport removes a request once its outcome
// is known, before the client can see the answer and reuse the id, so a cancel never
// reaches a request that has been answered.
func (c *Cancels) Remove(r *Running) {
	if !r.registered {
		return
	}
	s := &c.shards[r.shard]
	s.mu.Lock()
	if r.prev == nil {
		s.head = r.next
	} else {
		r.prev.next = r.next
	}
	if r.next != nil {
		r.next.prev = r.prev
	}
	s.mu.Unlock()
	r.prev, r.next, r.registered = nil, nil, false
	r.id, r.owner = nil, nil
}

// Cancel withdraws the one running request of scope with the id requestId names (the
// requestId of notifications/cancelled), under the registry's locks, so that the request
// is not let go of meanwhile, and reports whether there was exactly one. An id that is not
// a string or an integer names none (the decoder refuses other request ids), and two
// requests in flight under the same key are ambiguous: neither is withdrawn.
func (c *Cancels) Cancel(scope string, requestID decode.Value) bool {
	if t := requestID.Type(); t != decode.TypeString && t != decode.TypeInteger {
		return false
	}
	id := requestID.Raw()
	for i := range c.shards {
		c.shards[i].mu.Lock()
	}
	defer func() {
		for i := range c.shards {
			c.shards[i].mu.Unlock()
		}
	}()
	var found *Running
	for i := range c.shards {
		for r := c.shards[i].head; r != nil; r = r.next {
			if r.scope != scope || !bytes.Equal(r.id, id) {
				continue
			}
			if found != nil {
				return false
			}
			found = r
		}
	}
	if found == nil {
		return false
	}
	found.owner.Withdraw()
	return true
}
