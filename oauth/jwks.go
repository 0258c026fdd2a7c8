package oauth

import (
	"cmp"
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/fastmcp-go/fastmcp/internal/defaults"
)

// Defaults of [JWKSConfig].
const (
	DefaultJWKSTTL            = time.Hour
	DefaultMinRefreshInterval = time.Minute
	DefaultMaxKeys            = 32
	DefaultMaxJWKSBytes       = 256 << 10
	// DefaultFetchTimeout is half of streamable's default RequestGateTimeout, so that a key
	// set that does not answer is a 503 of the verifier, not a 504 of the gate.
	DefaultFetchTimeout = 5 * time.Second
	// MinRSABits is the smallest RSA key accepted (RFC 8725 §3.5, NIST).
	MinRSABits = 2048
)

// JWKSConfig configures the cache of an issuer's JSON Web Key Set.
type JWKSConfig struct {
	// URL is where the key set is published (the jwks_uri of the issuer's metadata): https,
	// or http on a loopback host. Required.
	URL string
	// TTL is how long a fetched key set is used before it is fetched again; a
	// Cache-Control max-age in the response shortens it, down to MinRefreshInterval. When the
	// set cannot be fetched again, its keys keep working until the TTL ends, and then no
	// token can be checked (the gate answers 503) until a fetch succeeds. Zero means
	// [DefaultJWKSTTL], 1 h.
	TTL time.Duration
	// MinRefreshInterval is the least time between two fetches: a token with an unknown kid
	// triggers a fetch (to pick up a rotated key) at most this often, so that garbage kids
	// cannot hammer the issuer. In between it is answered at once: 401 invalid_token if the
	// last fetch succeeded (the kid is not the issuer's), 503 if it failed (the key may be
	// one the server could not fetch). Zero means [DefaultMinRefreshInterval], 1 min.
	MinRefreshInterval time.Duration
	// MaxKeys bounds the keys of the set; a larger set is a failed fetch (the previous set
	// stays in use). Zero means [DefaultMaxKeys], 32.
	MaxKeys int
	// MaxBytes bounds the key set document; a larger one is a failed fetch. Zero means
	// [DefaultMaxJWKSBytes], 256 KiB.
	MaxBytes int64
	// FetchTimeout bounds one fetch, which outlives the requests waiting for it (they wait
	// at most until the gate's verification budget ends, see [ResourceServer.Gate]). Zero
	// means [DefaultFetchTimeout], 5 s.
	FetchTimeout time.Duration
	// HTTPClient fetches the set; nil means a client of its own. Redirects are never
	// followed (a 3xx is a failed fetch).
	HTTPClient *http.Client
}

func (c JWKSConfig) resolve() (JWKSConfig, error) {
	if err := fetchURL("JWKS URL", c.URL); err != nil {
		return c, err
	}
	if err := cmp.Or(
		defaults.Resolve(&c.TTL, DefaultJWKSTTL, "JWKS TTL", ErrInvalidConfig),
		defaults.Resolve(&c.MinRefreshInterval, DefaultMinRefreshInterval, "JWKS MinRefreshInterval", ErrInvalidConfig),
		defaults.Resolve(&c.FetchTimeout, DefaultFetchTimeout, "JWKS FetchTimeout", ErrInvalidConfig),
	); err != nil {
		return c, err
	}
	switch {
	case c.MaxKeys < 0 || c.MaxBytes < 0:
		return c, fmt.Errorf("%w: JWKS MaxKeys and MaxBytes must not be negative", ErrInvalidConfig)
	case c.MinRefreshInterval > c.TTL:
		return c, fmt.Errorf("%w: JWKS MinRefreshInterval %v exceeds its TTL %v", ErrInvalidConfig, c.MinRefreshInterval, c.TTL)
	}
	if c.MaxKeys == 0 {
		c.MaxKeys = DefaultMaxKeys
	}
	if c.MaxBytes == 0 {
		c.MaxBytes = DefaultMaxJWKSBytes
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{}
	}
	// Never follow a redirect: the key set is where configuration says.
	client := *c.HTTPClient
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c.HTTPClient = &client
	return c, nil
}

// Reasons a key lookup fails: errUnknownKey says the token is bad (a fresh set, fetched
// successfully, lacks its key); errNoKeySet that it could not be checked.
var (
	errUnknownKey  = errors.New("no key of the issuer's set matches the token")
	errNoKeySet    = errors.New("the issuer's key set could not be fetched")
	errTooManyKeys = errors.New("the key set has more keys than MaxKeys")
)

// keySet is a cache of one issuer's key set: fetched lazily, used until its TTL, fetched
// again on an unknown kid at most every MinRefreshInterval, one fetch at a time.
type keySet struct {
	cfg JWKSConfig
	now func() time.Time

	mu        sync.Mutex
	keys      []jose.JSONWebKey // the usable keys of the last good set
	expires   time.Time         // when keys stop being used
	attempted time.Time         // the last fetch's start, successful or not
	lastErr   error             // why the last fetch failed; nil if it succeeded
	fetching  chan struct{}     // closed when the fetch in flight ends; nil when none
	fetches   int               // fetches started, for tests and stats
}

func newKeySet(cfg JWKSConfig, now func() time.Time) (*keySet, error) {
	cfg, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	return &keySet{cfg: cfg, now: now}, nil
}

// lookup returns the keys a token with kid (possibly empty) may have been signed with. It
// fails with errUnknownKey when a fresh set from a successful fetch lacks the kid, and with
// an error wrapping errNoKeySet, or ctx's, when it could not tell.
func (ks *keySet) lookup(ctx context.Context, kid string) ([]jose.JSONWebKey, error) {
	for waited := false; ; waited = true {
		ks.mu.Lock()
		now := ks.now()
		fresh := now.Before(ks.expires)
		if fresh {
			if keys := match(ks.keys, kid); len(keys) > 0 {
				ks.mu.Unlock()
				return keys, nil
			}
		}
		// Stale, or the kid is unknown: fetch, unless this goroutine already waited for one
		// or one started too recently; then the last fetch decides.
		recent := !ks.attempted.IsZero() && now.Sub(ks.attempted) < ks.cfg.MinRefreshInterval
		if waited || recent && ks.fetching == nil {
			lastErr := ks.lastErr
			ks.mu.Unlock()
			switch {
			case lastErr != nil:
				return nil, fmt.Errorf("%w: %w", errNoKeySet, lastErr)
			case !fresh:
				return nil, errNoKeySet
			}
			return nil, errUnknownKey
		}
		wait := ks.fetching
		if wait == nil {
			wait = make(chan struct{})
			ks.fetching, ks.attempted = wait, now
			ks.fetches++
			go ks.fetch(wait)
		}
		ks.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// fetch gets the key set once and installs it if it is good; it outlives the request that
// started it (bounded by FetchTimeout), so a cancelled request does not waste the fetch.
func (ks *keySet) fetch(done chan struct{}) {
	keys, ttl, err := ks.safeGet()
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if err == nil {
		ks.keys, ks.expires = keys, ks.now().Add(ttl)
	}
	ks.lastErr = err
	ks.fetching = nil
	close(done)
}

// safeGet is get, a panic (a key parser meeting a document it did not expect) turned into a
// failed fetch: the set comes from the network and must never bring the process down.
func (ks *keySet) safeGet() (keys []jose.JSONWebKey, ttl time.Duration, err error) {
	defer func() {
		if p := recover(); p != nil {
			keys, ttl, err = nil, 0, fmt.Errorf("key set parser panicked: %v", p)
		}
	}()
	return ks.get()
}

func (ks *keySet) get() ([]jose.JSONWebKey, time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), ks.cfg.FetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ks.cfg.URL, nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	resp, err := ks.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("key set fetch: status %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, ks.cfg.MaxBytes+1))
	if err != nil {
		return nil, 0, err
	}
	if int64(len(body)) > ks.cfg.MaxBytes {
		return nil, 0, fmt.Errorf("key set over MaxBytes (%d)", ks.cfg.MaxBytes)
	}
	keys, err := parseKeySet(body, ks.cfg.MaxKeys)
	if err != nil {
		return nil, 0, err
	}
	return keys, ks.ttl(resp.Header.Get("Cache-Control")), nil
}

// ttl is TTL, shortened by a max-age directive to no less than MinRefreshInterval.
func (ks *keySet) ttl(cacheControl string) time.Duration {
	ttl := ks.cfg.TTL
	for d := range strings.SplitSeq(cacheControl, ",") {
		v, ok := strings.CutPrefix(strings.TrimSpace(strings.ToLower(d)), "max-age=")
		if !ok {
			continue
		}
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 && n < int64(ttl/time.Second) {
			ttl = max(time.Duration(n)*time.Second, ks.cfg.MinRefreshInterval)
		}
	}
	return ttl
}

// parseKeySet reads a JWK Set (RFC 7517 §5), keeping the public signature keys fastmcp can
// use and ignoring the others (unknown kty, private or symmetric material, use other than
// sig, RSA under MinRSABits), as §5 asks.
func parseKeySet(body []byte, maxKeys int) ([]jose.JSONWebKey, error) {
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("key set is not JSON: %w", err)
	}
	if set.Keys == nil {
		return nil, errors.New("key set has no keys member")
	}
	if len(set.Keys) > maxKeys {
		return nil, errTooManyKeys
	}
	keys := make([]jose.JSONWebKey, 0, len(set.Keys))
	for _, raw := range set.Keys {
		var probe struct {
			D, K, P, Q, Priv json.RawMessage
		}
		if json.Unmarshal(raw, &probe) != nil || probe.D != nil || probe.K != nil || probe.P != nil || probe.Q != nil || probe.Priv != nil {
			continue // private or symmetric material has no place in a public set
		}
		var k jose.JSONWebKey
		if k.UnmarshalJSON(raw) != nil || (k.Use != "" && k.Use != "sig") {
			continue
		}
		switch pub := k.Key.(type) {
		case *rsa.PublicKey:
			if pub.N.BitLen() < MinRSABits {
				continue
			}
		case *ecdsa.PublicKey, ed25519.PublicKey:
		default:
			continue
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// match returns the keys with kid; with no kid, the set's only key, if it has one.
func match(keys []jose.JSONWebKey, kid string) []jose.JSONWebKey {
	if kid == "" {
		if len(keys) == 1 {
			return keys
		}
		return nil
	}
	var out []jose.JSONWebKey
	for _, k := range keys {
		if k.KeyID == kid {
			out = append(out, k)
		}
	}
	return out
}
