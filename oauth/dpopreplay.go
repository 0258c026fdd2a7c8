package oauth

import (
	"crypto/sha256"
	"sync"
	"time"
)

// replayKey names a proof in the replay cache: the first 16 bytes of the SHA-256 of its
// key's thumbprint and its jti. Two clients choosing the same jti do not collide; a
// collision of the hash could only refuse a proof, never admit one.
type replayKey [16]byte

func newReplayKey(jkt, jti string) replayKey {
	h := sha256.New()
	h.Write([]byte(jkt))
	h.Write([]byte{0})
	h.Write([]byte(jti))
	var sum [sha256.Size]byte
	var k replayKey
	copy(k[:], h.Sum(sum[:0]))
	return k
}

// replayVerdict is what the replay cache says of a proof.
type replayVerdict uint8

const (
	replayFresh replayVerdict = iota // not seen: now remembered
	replaySeen                       // seen within its window
	replayFull                       // not seen, and no room to remember it
)

// replayCache remembers the proofs the gate accepted until they could no longer be
// accepted anyway (their iat plus the window), so that none is accepted twice (RFC 9449
// §11.1). Entries are grouped in buckets by expiry, width half the window, and a bucket is
// dropped whole once every entry of it has expired: no sweep, no goroutine, each entry kept
// at most a bucket's width past its expiry. It holds at most max entries, counted exactly;
// full, it refuses to remember rather than forget one (a forgotten proof could be
// replayed).
type replayCache struct {
	width time.Duration
	max   int

	mu      sync.Mutex
	n       int
	buckets map[int64]map[replayKey]struct{} // by expiry / width
}

func newReplayCache(window time.Duration, maxProofs int) *replayCache {
	return &replayCache{width: max(window/2, time.Millisecond), max: maxProofs, buckets: map[int64]map[replayKey]struct{}{}}
}

// remember records the proof with key k, acceptable until expires, at now.
func (c *replayCache) remember(k replayKey, expires, now time.Time) replayVerdict {
	b := expires.UnixNano() / int64(c.width)
	c.mu.Lock()
	defer c.mu.Unlock()
	current := now.UnixNano() / int64(c.width)
	for i, bucket := range c.buckets {
		if i < current { // every expiry in it is before now
			c.n -= len(bucket)
			delete(c.buckets, i)
		}
	}
	bucket := c.buckets[b]
	if _, seen := bucket[k]; seen {
		return replaySeen
	}
	if c.n >= c.max {
		return replayFull
	}
	if bucket == nil {
		bucket = map[replayKey]struct{}{}
		c.buckets[b] = bucket
	}
	bucket[k] = struct{}{}
	c.n++
	return replayFresh
}

// len counts the entries, for tests.
func (c *replayCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}
