package oauth

import (
	"crypto/sha256"
	"sync"
	"time"
)

// Defaults of the introspection refusal cache ([IntrospectionConfig.MaxCachedRefusals],
// [IntrospectionConfig.RefusalCacheTTL]).
const (
	DefaultMaxCachedRefusals = 10_000
	DefaultRefusalCacheTTL   = time.Minute
	// NoRefusalCache, as MaxCachedRefusals, asks the endpoint about every unknown token.
	NoRefusalCache = -1
)

// refusalCache remembers the tokens the introspection endpoint refused, by the SHA-256 of
// the token (never the token), each for the TTL, so that the same junk token sent again
// costs a hash and a map lookup instead of a call to the authorization server. It holds at
// most max entries; a full cache drops one at random (Go's map order) to admit another, so
// a flood of distinct junk cannot grow it.
type refusalCache struct {
	ttl time.Duration
	max int

	mu sync.Mutex
	m  map[[sha256.Size]byte]time.Time // until when the refusal is remembered
}

func newRefusalCache(maxRefusals int, ttl time.Duration) *refusalCache {
	return &refusalCache{ttl: ttl, max: maxRefusals, m: make(map[[sha256.Size]byte]time.Time)}
}

// refused reports whether the token with key was refused less than the TTL before now.
func (c *refusalCache) refused(key *[sha256.Size]byte, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	until, ok := c.m[*key]
	if ok && !now.Before(until) {
		delete(c.m, *key)
		ok = false
	}
	return ok
}

// put remembers a refusal made at now.
func (c *refusalCache) put(key *[sha256.Size]byte, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[*key]; !ok && len(c.m) >= c.max {
		for k := range c.m {
			delete(c.m, k)
			break
		}
	}
	c.m[*key] = now.Add(c.ttl)
}

// len counts the entries, for tests.
func (c *refusalCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// flights coalesce the introspection calls of one token: the requests that arrive while a
// call for their token is in flight wait for its answer instead of making their own.
type flights struct {
	mu sync.Mutex
	m  map[[sha256.Size]byte]*flight
}

// flight is one introspection call; info and err are set before done is closed.
type flight struct {
	done chan struct{}
	info *TokenInfo
	err  error
}

// join returns the flight of key, and whether the caller leads it (makes the call, then
// calls land).
func (fs *flights) join(key *[sha256.Size]byte) (*flight, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if f := fs.m[*key]; f != nil {
		return f, false
	}
	if fs.m == nil {
		fs.m = make(map[[sha256.Size]byte]*flight)
	}
	f := &flight{done: make(chan struct{})}
	fs.m[*key] = f
	return f, true
}

// land ends the flight of key, releasing its waiters.
func (fs *flights) land(key *[sha256.Size]byte, f *flight) {
	fs.mu.Lock()
	delete(fs.m, *key)
	fs.mu.Unlock()
	close(f.done)
}
