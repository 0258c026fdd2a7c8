package fastmcp

import (
	"cmp"
	"context"
	"sync"
	"time"

	"github.com/fastmcp-go/fastmcp/internal/defaults"
)

// ConcurrencyOptions configures [Concurrency].
type ConcurrencyOptions struct {
	// Limit is the number of calls in flight admitted per component and key. If zero,
	// [DefaultComponentConcurrency] is used. Negative values are invalid.
	Limit int
	// Key, if set, names the caller a call counts against, from the request's context (for
	// example the principal of [IdentityFrom]); calls with different keys are counted apart.
	// If nil, every call of a component shares one count. A panic in Key refuses the call
	// with "Component concurrency key failed".
	Key func(ctx context.Context) string
}

// Concurrency returns a wrapper that bounds the calls of a component in flight at once, per
// key. A call over the limit is refused at once with "Component concurrency limit reached"
// (it does not wait). A call holds its permit until the wrappers declared after this one and
// the handler return, or panic.
func Concurrency(o ConcurrencyOptions) Wrapper {
	if err := defaults.Resolve(&o.Limit, DefaultComponentConcurrency, "Limit", errInvalidConcurrency); err != nil {
		return Wrapper{name: "Concurrency", err: err}
	}
	st := &concurrencyState{limit: o.Limit, inFlight: map[concurrencySlot]int{}}
	return Wrapper{name: "Concurrency", wrap: func(ctx context.Context, s *Server, c Component, next func(context.Context) error) error {
		key, ok := callKey(ctx, s, c, "Concurrency", o.Key)
		if !ok {
			return errConcurrencyKey
		}
		slot := concurrencySlot{idOf(c), key}
		if !st.acquire(slot) {
			return errConcurrencyLimit
		}
		defer st.release(slot)
		return next(ctx)
	}}
}

type concurrencySlot struct {
	c   componentID
	key string
}

// concurrencyState counts the calls in flight per component and key; slots with none are
// deleted, so it holds no more entries than calls in flight.
type concurrencyState struct {
	limit    int
	mu       sync.Mutex
	inFlight map[concurrencySlot]int
}

func (st *concurrencyState) acquire(k concurrencySlot) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	n := st.inFlight[k]
	if n >= st.limit {
		return false
	}
	st.inFlight[k] = n + 1
	return true
}

func (st *concurrencyState) release(k concurrencySlot) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if n := st.inFlight[k]; n > 1 {
		st.inFlight[k] = n - 1
	} else {
		delete(st.inFlight, k)
	}
}

// RateLimitOptions configures [RateLimit].
type RateLimitOptions struct {
	// Limit is the number of calls admitted per window, component and key. If zero,
	// [DefaultComponentRateLimit] is used. Negative values are invalid.
	Limit int
	// Window is the length of a window. If zero, [DefaultComponentRateWindow] is used.
	// Negative values are invalid.
	Window time.Duration
	// MaxKeys bounds the keys tracked per component, that is the memory the limiter uses. If
	// zero, [DefaultComponentRateKeys] is used. Negative values are invalid.
	MaxKeys int
	// Key, if set, names the caller a call counts against, from the request's context (for
	// example the principal of [IdentityFrom]); calls with different keys are counted apart.
	// If nil, every call of a component shares one count. A panic in Key refuses the call
	// with "Component rate key failed".
	Key func(ctx context.Context) string
}

// RateLimit returns a wrapper that limits the calls of a component per key to Limit in a
// fixed window: a key's window opens at its first call and lasts Window, and calls past
// Limit in it are refused with "Component rate limit reached". Refused calls do not count. A
// call with a key not yet tracked while MaxKeys keys are, after forgetting the keys whose
// window has ended, is refused with "Component rate key capacity reached".
func RateLimit(o RateLimitOptions) Wrapper {
	if err := cmp.Or(
		defaults.Resolve(&o.Limit, DefaultComponentRateLimit, "Limit", errInvalidRateLimit),
		defaults.Resolve(&o.Window, DefaultComponentRateWindow, "Window", errInvalidRateLimit),
		defaults.Resolve(&o.MaxKeys, DefaultComponentRateKeys, "MaxKeys", errInvalidRateLimit),
	); err != nil {
		return Wrapper{name: "RateLimit", err: err}
	}
	st := &rateState{limit: o.Limit, window: o.Window, maxKeys: o.MaxKeys, tables: map[componentID]*rateTable{}}
	return Wrapper{name: "RateLimit", wrap: func(ctx context.Context, s *Server, c Component, next func(context.Context) error) error {
		key, ok := callKey(ctx, s, c, "RateLimit", o.Key)
		if !ok {
			return errRateKey
		}
		if err := st.admit(idOf(c), key, s.now()); err != nil {
			return err
		}
		return next(ctx)
	}}
}

type rateState struct {
	limit   int
	window  time.Duration
	maxKeys int

	mu     sync.Mutex
	tables map[componentID]*rateTable
}

// rateTable holds the windows of one component's keys.
type rateTable struct {
	windows map[string]rateWindow
	// oldest is at or before the start of every window: none ends before oldest+window, so
	// pruning is skipped until then.
	oldest time.Time
}

type rateWindow struct {
	start time.Time
	n     int
}

func (st *rateState) admit(c componentID, key string, now time.Time) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	t := st.tables[c]
	if t == nil {
		t = &rateTable{windows: map[string]rateWindow{}}
		st.tables[c] = t
	}
	w, ok := t.windows[key]
	switch {
	case ok && now.Sub(w.start) < st.window:
		if w.n >= st.limit {
			return errRateLimit
		}
		w.n++
		t.windows[key] = w
		return nil
	case ok: // the window ended: open the next one (starts only grow, oldest stays a bound)
		t.windows[key] = rateWindow{start: now, n: 1}
		return nil
	}
	if len(t.windows) >= st.maxKeys {
		t.prune(now, st.window)
		if len(t.windows) >= st.maxKeys {
			return errRateKeyCapacity
		}
	}
	if len(t.windows) == 0 || now.Before(t.oldest) {
		t.oldest = now
	}
	t.windows[key] = rateWindow{start: now, n: 1}
	return nil
}

// prune forgets the keys whose window has ended, and makes oldest exact.
func (t *rateTable) prune(now time.Time, window time.Duration) {
	if now.Sub(t.oldest) < window {
		return // no window can have ended yet
	}
	var oldest time.Time
	first := true
	for k, w := range t.windows {
		if now.Sub(w.start) >= window {
			delete(t.windows, k)
			continue
		}
		if first || w.start.Before(oldest) {
			oldest, first = w.start, false
		}
	}
	t.oldest = oldest
}
