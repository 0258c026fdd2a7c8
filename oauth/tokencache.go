package oauth

import (
	"crypto/sha256"
	"sync"
	"time"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// Defaults of the verified-token cache ([Config.MaxCachedTokens], [Config.TokenCacheTTL]).
const (
	DefaultMaxCachedTokens = 10_000
	DefaultTokenCacheTTL   = time.Minute
	// NoTokenCache, as MaxCachedTokens, verifies every request's token anew.
	NoTokenCache = -1
)

const tokenCacheShards = 16

// tokenCache remembers verified tokens by the SHA-256 of the token (never the token), each
// until min(its expiry, TokenCacheTTL after verification), so that a client's next requests
// cost a hash and a map lookup instead of a signature check or an introspection round trip.
// Each of its shards holds at most max/shards entries; a full shard drops one entry at
// random (Go's map order) to admit another.
type tokenCache struct {
	ttl    time.Duration
	max    int // per shard
	shards [tokenCacheShards]tokenShard
}

type tokenShard struct {
	mu sync.Mutex
	m  map[[sha256.Size]byte]cachedToken
}

type cachedToken struct {
	id      *fastmcp.Identity // Claims is the *TokenInfo; shared by the token's requests
	expires time.Time
}

func newTokenCache(maxTokens int, ttl time.Duration) *tokenCache {
	c := &tokenCache{ttl: ttl, max: max(1, maxTokens/tokenCacheShards)}
	for i := range c.shards {
		c.shards[i].m = make(map[[sha256.Size]byte]cachedToken)
	}
	return c
}

func (c *tokenCache) shard(key *[sha256.Size]byte) *tokenShard {
	return &c.shards[key[0]%tokenCacheShards]
}

// get returns the cached identity of the token with key, if still valid at now.
func (c *tokenCache) get(key *[sha256.Size]byte, now time.Time) *fastmcp.Identity {
	s := c.shard(key)
	s.mu.Lock()
	e, ok := s.m[*key]
	if ok && !now.Before(e.expires) {
		delete(s.m, *key)
		ok = false
	}
	s.mu.Unlock()
	if !ok {
		return nil
	}
	return e.id
}

// put remembers a verification made at now.
func (c *tokenCache) put(key *[sha256.Size]byte, id *fastmcp.Identity, info *TokenInfo, now time.Time) {
	expires := now.Add(c.ttl)
	if !info.Expiry.IsZero() && info.Expiry.Before(expires) {
		expires = info.Expiry
	}
	s := c.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[*key]; !ok && len(s.m) >= c.max {
		for k := range s.m {
			delete(s.m, k)
			break
		}
	}
	s.m[*key] = cachedToken{id: id, expires: expires}
}

// len counts the entries, for tests.
func (c *tokenCache) len() int {
	n := 0
	for i := range c.shards {
		c.shards[i].mu.Lock()
		n += len(c.shards[i].m)
		c.shards[i].mu.Unlock()
	}
	return n
}
