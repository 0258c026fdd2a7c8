package fastmcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Helpers of the wrapper tests (prefixed wrap to stay clear of other areas' helpers).

// wrapCall is a tools/call request for name with an arguments object.
func wrapCall(id int, name, args string) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"` + name +
		`","arguments":` + args + `,` + meta + `}}`
}

// wrapOK is the reply of a tool that returned one text block.
func wrapOK(id int, text string) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"result":{"resultType":"complete","content":[{"type":"text","text":"` +
		text + `"}],` + serverInfoMeta + `}}`
}

// wrapRefused is the reply of a tool call a wrapper refused: an isError result.
func wrapRefused(id int, text string) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"result":{"resultType":"complete","content":[{"type":"text","text":"` +
		text + `"}],"isError":true,` + serverInfoMeta + `}}`
}

// wrapServer is a test server whose logs go to the returned buffer.
func wrapServer(t testing.TB, cfg *Config) (*Server, *wrapLog) {
	t.Helper()
	var c Config
	if cfg != nil {
		c = *cfg
	}
	log := &wrapLog{}
	c.Logger = slog.New(slog.NewTextHandler(log, nil))
	return newTestServer(t, &c), log
}

// wrapLog is a log destination safe for concurrent writes.
type wrapLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *wrapLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *wrapLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// wrapTool registers a tool with the object schema {} and the wrappers ws.
func wrapTool(s *Server, name string, h RawToolHandler, ws ...Wrapper) {
	s.AddRawTool(Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`), Wrap: ws}, h)
}

func wrapReturn(text string) RawToolHandler {
	return func(context.Context, *Request, json.RawMessage) (ToolResult, error) {
		return ToolResult{Text: text}, nil
	}
}

// wrapTrace records what wrappers and handlers see, in order, from any goroutine.
type wrapTrace struct {
	mu     sync.Mutex
	events []string
}

func (tr *wrapTrace) add(e string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.events = append(tr.events, e)
}

func (tr *wrapTrace) get() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return append([]string(nil), tr.events...)
}

// wrapper returns a wrapper that records its entry and exit.
func (tr *wrapTrace) wrapper(name string) Wrapper {
	return Wrapper{name: "trace", wrap: func(ctx context.Context, _ *Server, c Component, next func(context.Context) error) error {
		tr.add(name + ">" + c.Kind + ":" + c.Name)
		err := next(ctx)
		tr.add("<" + name)
		return err
	}}
}

// wrapPrincipal is a wrapper key function: the caller's principal.
func wrapPrincipal(ctx context.Context) string { return principalOf(ctx) }

func wrapAs(principal string) context.Context {
	return WithIdentity(context.Background(), &Identity{Principal: principal})
}

// wrapClock is a settable clock for Server.now.
type wrapClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *wrapClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *wrapClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newWrapClock(s *Server) *wrapClock {
	c := &wrapClock{t: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)}
	s.now = c.now
	return c
}

func TestWrapperOrder(t *testing.T) {
	s, _ := wrapServer(t, nil)
	tr := &wrapTrace{}
	wrapTool(s, "traced", func(ctx context.Context, _ *Request, args json.RawMessage) (ToolResult, error) {
		tr.add("handler " + string(args))
		return ToolResult{Text: "done"}, nil
	}, tr.wrapper("outer"), Timeout(TimeoutOptions{}), tr.wrapper("middle"),
		Concurrency(ConcurrencyOptions{}), RateLimit(RateLimitOptions{}), tr.wrapper("inner"))

	got := dispatch(t, s, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"traced","arguments":{"x":1},`+meta+`}}`)
	assert.Equal(t, `{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[{"type":"text","text":"done"}],`+serverInfoMeta+`}}`, got)
	assert.Equal(t, []string{
		"outer>tool:traced", "middle>tool:traced", "inner>tool:traced",
		`handler {"x":1}`,
		"<inner", "<middle", "<outer",
	}, tr.get())
}

func TestWrapperRefusalUnwindsOuterWrappers(t *testing.T) {
	s, _ := wrapServer(t, nil)
	tr := &wrapTrace{}
	wrapTool(s, "limited", func(context.Context, *Request, json.RawMessage) (ToolResult, error) {
		tr.add("handler")
		return ToolResult{Text: "done"}, nil
	}, tr.wrapper("outer"), RateLimit(RateLimitOptions{Limit: 1}), tr.wrapper("inner"))

	assert.Equal(t, wrapOK(1, "done"), dispatch(t, s, wrapCall(1, "limited", `{}`)))
	assert.Equal(t, wrapRefused(2, "Component rate limit reached"), dispatch(t, s, wrapCall(2, "limited", `{}`)))
	assert.Equal(t, []string{
		"outer>tool:limited", "inner>tool:limited", "handler", "<inner", "<outer",
		"outer>tool:limited", "<outer", // refused by RateLimit: inner and handler never ran
	}, tr.get())
}

func TestWrapperNeverSeesInvalidArguments(t *testing.T) {
	s, _ := wrapServer(t, nil)
	tr := &wrapTrace{}
	s.AddRawTool(Tool{
		Name:        "count",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`),
		Wrap:        []Wrapper{tr.wrapper("outer"), RateLimit(RateLimitOptions{Limit: 1})},
	}, wrapReturn("counted"))

	// Schema failures are isError results, arguments of the wrong type -32602: neither runs a
	// wrapper, and neither uses up the one call RateLimit admits.
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"Invalid arguments: /n: expected integer, got string"}],"isError":true,`+serverInfoMeta+`}}`,
		dispatch(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"n":"x"},`+meta+`}}`))
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"Invalid arguments: missing required property \"n\""}],"isError":true,`+serverInfoMeta+`}}`,
		dispatch(t, s, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count",`+meta+`}}`))
	assert.Equal(t, `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: arguments must be an object"}}`,
		dispatch(t, s, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"count","arguments":[1],`+meta+`}}`))
	assert.Empty(t, tr.get())

	assert.Equal(t, wrapOK(4, "counted"), dispatch(t, s, wrapCall(4, "count", `{"n":1}`)))
	assert.Equal(t, []string{"outer>tool:count", "<outer"}, tr.get())
}

func TestWrapperRunsAfterAuthorization(t *testing.T) {
	s, _ := wrapServer(t, &Config{Authorizer: AuthorizerFunc(func(ctx context.Context, phase Phase, _ string, c Component) error {
		if principalOf(ctx) != "alice" {
			return ErrRefused
		}
		return nil
	})})
	tr := &wrapTrace{}
	wrapTool(s, "guarded", wrapReturn("in"), tr.wrapper("outer"), RateLimit(RateLimitOptions{Limit: 1}))

	got := string(s.Dispatch(wrapAs("mallory"), []byte(wrapCall(1, "guarded", `{}`)), nil))
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32003,"message":"Access denied"}}`, got)
	assert.Empty(t, tr.get(), "a refused call reaches no wrapper")

	got = string(s.Dispatch(wrapAs("alice"), []byte(wrapCall(2, "guarded", `{}`)), nil))
	assert.Equal(t, wrapOK(2, "in"), got, "the refused call used none of the rate limit")
}

func TestWrapperInvalidOptionsPanicAtRegistration(t *testing.T) {
	tests := []struct {
		name string
		w    Wrapper
		want string
	}{
		{"negative timeout", Timeout(TimeoutOptions{Timeout: -time.Millisecond}), "fastmcp: tool t: wrapper Timeout: Timeout -1ms is negative"},
		{"negative concurrency", Concurrency(ConcurrencyOptions{Limit: -1}), "fastmcp: tool t: wrapper Concurrency: Limit -1 is negative"},
		{"negative rate", RateLimit(RateLimitOptions{Limit: -2}), "fastmcp: tool t: wrapper RateLimit: Limit -2 is negative"},
		{"negative window", RateLimit(RateLimitOptions{Window: -time.Second}), "fastmcp: tool t: wrapper RateLimit: Window -1s is negative"},
		{"negative keys", RateLimit(RateLimitOptions{MaxKeys: -3}), "fastmcp: tool t: wrapper RateLimit: MaxKeys -3 is negative"},
		{"zero wrapper", Wrapper{}, "fastmcp: tool t: wrapper: the zero Wrapper does nothing; use Timeout, Concurrency or RateLimit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := wrapServer(t, nil)
			require.PanicsWithValue(t, tc.want, func() {
				wrapTool(s, "t", wrapReturn("x"), Timeout(TimeoutOptions{}), tc.w)
			})
			require.PanicsWithValue(t, tc.want, func() {
				AddTool(s, Tool{Name: "t", Wrap: []Wrapper{tc.w}}, func(context.Context, *Request, struct{}) (ToolResult, error) {
					return ToolResult{}, nil
				})
			})
			assert.Empty(t, s.catalog.Load().tools, "nothing was registered")
		})
	}
	t.Run("zero options are the defaults", func(t *testing.T) {
		for _, w := range []Wrapper{Timeout(TimeoutOptions{}), Concurrency(ConcurrencyOptions{}), RateLimit(RateLimitOptions{})} {
			assert.NoError(t, w.validate(), w.name)
		}
	})
}

func TestWrapperKeyPanics(t *testing.T) {
	panicky := func(context.Context) string { panic("no key today") }
	s, log := wrapServer(t, nil)
	called := false
	h := func(context.Context, *Request, json.RawMessage) (ToolResult, error) {
		called = true
		return ToolResult{Text: "x"}, nil
	}
	wrapTool(s, "conc", h, Concurrency(ConcurrencyOptions{Key: panicky}))
	wrapTool(s, "rate", h, RateLimit(RateLimitOptions{Key: panicky}))

	assert.Equal(t, wrapRefused(1, "Component concurrency key failed"), dispatch(t, s, wrapCall(1, "conc", `{}`)))
	assert.Equal(t, wrapRefused(2, "Component rate key failed"), dispatch(t, s, wrapCall(2, "rate", `{}`)))
	assert.False(t, called)
	assert.Contains(t, log.String(), "no key today")
	assert.Contains(t, log.String(), "wrapper key function panicked")
}

func TestConcurrencyLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := wrapServer(t, nil)
		entered, release := make(chan struct{}), make(chan struct{})
		wrapTool(s, "slow", func(context.Context, *Request, json.RawMessage) (ToolResult, error) {
			entered <- struct{}{}
			<-release
			return ToolResult{Text: "slow done"}, nil
		}, Concurrency(ConcurrencyOptions{Limit: 1}))

		first := make(chan string)
		go func() { first <- dispatch(t, s, wrapCall(1, "slow", `{}`)) }()
		<-entered
		assert.Equal(t, wrapRefused(2, "Component concurrency limit reached"), dispatch(t, s, wrapCall(2, "slow", `{}`)))
		close(release)
		assert.Equal(t, wrapOK(1, "slow done"), <-first)

		// The permit came back: the next call runs.
		go func() { <-entered }()
		assert.Equal(t, wrapOK(3, "slow done"), dispatch(t, s, wrapCall(3, "slow", `{}`)))
	})
}

func TestConcurrencyPerKeyAndComponent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := wrapServer(t, nil)
		release := make(chan struct{})
		block := func(context.Context, *Request, json.RawMessage) (ToolResult, error) {
			<-release
			return ToolResult{Text: "done"}, nil
		}
		shared := Concurrency(ConcurrencyOptions{Limit: 1, Key: wrapPrincipal})
		wrapTool(s, "a", block, shared)
		wrapTool(s, "b", block, shared)

		var wg sync.WaitGroup
		call := func(principal string, id int, name, want string) {
			wg.Go(func() {
				assert.Equal(t, want, string(s.Dispatch(wrapAs(principal), []byte(wrapCall(id, name, `{}`)), nil)))
			})
			synctest.Wait() // the call is blocked in its handler, or answered
		}
		call("alice", 1, "a", wrapOK(1, "done"))
		call("alice", 2, "a", wrapRefused(2, "Component concurrency limit reached"))
		call("bob", 3, "a", wrapOK(3, "done"))   // another key
		call("alice", 4, "b", wrapOK(4, "done")) // another component, same Wrapper value
		call("bob", 5, "b", wrapOK(5, "done"))
		call("bob", 6, "b", wrapRefused(6, "Component concurrency limit reached"))
		close(release)
		wg.Wait()
	})
}

func TestConcurrencyReleasesAfterPanic(t *testing.T) {
	s, _ := wrapServer(t, nil)
	calls := 0
	wrapTool(s, "flaky", func(context.Context, *Request, json.RawMessage) (ToolResult, error) {
		calls++
		if calls == 1 {
			panic("boom")
		}
		return ToolResult{Text: "fine"}, nil
	}, Concurrency(ConcurrencyOptions{Limit: 1}))

	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Tool raised an exception"}}`, dispatch(t, s, wrapCall(1, "flaky", `{}`)))
	assert.Equal(t, wrapOK(2, "fine"), dispatch(t, s, wrapCall(2, "flaky", `{}`)))
}

func TestConcurrencyDefaultLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := wrapServer(t, nil)
		w := Concurrency(ConcurrencyOptions{})
		c := Component{Kind: "tool", Name: "t"}
		release := make(chan struct{})
		hold := func(context.Context) error { <-release; return nil }
		for range DefaultComponentConcurrency {
			go func() { assert.NoError(t, w.wrap(context.Background(), s, c, hold)) }()
		}
		synctest.Wait()
		assert.Same(t, errConcurrencyLimit, w.wrap(context.Background(), s, c, hold))
		close(release)
		synctest.Wait()
		assert.NoError(t, w.wrap(context.Background(), s, c, func(context.Context) error { return nil }))
	})
}

// TestConcurrencyStress checks under the race detector that the limit holds and every permit
// comes back.
func TestConcurrencyStress(t *testing.T) {
	s, _ := wrapServer(t, nil)
	const limit, workers, calls = 4, 32, 200
	w := Concurrency(ConcurrencyOptions{Limit: limit, Key: func(ctx context.Context) string { return ctx.Value(wrapKey{}).(string) }})
	var mu sync.Mutex
	inFlight, peak := map[string]int{}, map[string]int{}
	var wg sync.WaitGroup
	for i := range workers {
		key := []string{"x", "y"}[i%2]
		ctx := context.WithValue(context.Background(), wrapKey{}, key)
		wg.Go(func() {
			for range calls {
				_ = w.wrap(ctx, s, Component{Kind: "tool", Name: "t"}, func(context.Context) error {
					mu.Lock()
					inFlight[key]++
					peak[key] = max(peak[key], inFlight[key])
					mu.Unlock()
					runtime.Gosched()
					mu.Lock()
					inFlight[key]--
					mu.Unlock()
					return nil
				})
			}
		})
	}
	wg.Wait()
	assert.LessOrEqual(t, peak["x"], limit)
	assert.LessOrEqual(t, peak["y"], limit)

	// Every permit came back: limit calls of one key are in flight at once again.
	var held, done sync.WaitGroup
	release := make(chan struct{})
	for range limit {
		held.Add(1)
		done.Go(func() {
			ctx := context.WithValue(context.Background(), wrapKey{}, "x")
			assert.NoError(t, w.wrap(ctx, s, Component{Kind: "tool", Name: "t"}, func(context.Context) error {
				held.Done()
				<-release
				return nil
			}))
		})
	}
	held.Wait()
	ctx := context.WithValue(context.Background(), wrapKey{}, "x")
	assert.Same(t, errConcurrencyLimit, w.wrap(ctx, s, Component{Kind: "tool", Name: "t"}, func(context.Context) error { return nil }))
	close(release)
	done.Wait()
}

type wrapKey struct{}

func TestRateLimitPerKey(t *testing.T) {
	s, _ := wrapServer(t, nil)
	clock := newWrapClock(s)
	wrapTool(s, "metered", wrapReturn("ok"), RateLimit(RateLimitOptions{Limit: 2, Window: time.Minute, Key: wrapPrincipal}))
	call := func(principal string, id int) string {
		return string(s.Dispatch(wrapAs(principal), []byte(wrapCall(id, "metered", `{}`)), nil))
	}

	assert.Equal(t, wrapOK(1, "ok"), call("alice", 1))
	assert.Equal(t, wrapOK(2, "ok"), call("alice", 2))
	assert.Equal(t, wrapRefused(3, "Component rate limit reached"), call("alice", 3))
	clock.advance(30 * time.Second)
	assert.Equal(t, wrapOK(4, "ok"), call("bob", 4), "bob has his own window")
	assert.Equal(t, wrapOK(5, "ok"), call("bob", 5))
	assert.Equal(t, wrapRefused(6, "Component rate limit reached"), call("bob", 6))

	clock.advance(30*time.Second - time.Nanosecond)
	assert.Equal(t, wrapRefused(7, "Component rate limit reached"), call("alice", 7), "alice's window has not ended")
	clock.advance(time.Nanosecond)
	assert.Equal(t, wrapOK(8, "ok"), call("alice", 8), "alice's window ended at its first call plus a minute")
	assert.Equal(t, wrapRefused(9, "Component rate limit reached"), call("bob", 9), "bob's window opened 30 s later")
	clock.advance(30 * time.Second)
	assert.Equal(t, wrapOK(10, "ok"), call("bob", 10))
}

func TestRateLimitPerComponent(t *testing.T) {
	s, _ := wrapServer(t, nil)
	newWrapClock(s)
	shared := RateLimit(RateLimitOptions{Limit: 1})
	wrapTool(s, "a", wrapReturn("a"), shared)
	wrapTool(s, "b", wrapReturn("b"), shared)

	assert.Equal(t, wrapOK(1, "a"), dispatch(t, s, wrapCall(1, "a", `{}`)))
	assert.Equal(t, wrapOK(2, "b"), dispatch(t, s, wrapCall(2, "b", `{}`)))
	assert.Equal(t, wrapRefused(3, "Component rate limit reached"), dispatch(t, s, wrapCall(3, "a", `{}`)))
	assert.Equal(t, wrapRefused(4, "Component rate limit reached"), dispatch(t, s, wrapCall(4, "b", `{}`)))
}

func TestRateLimitKeyCapacity(t *testing.T) {
	s, _ := wrapServer(t, nil)
	clock := newWrapClock(s)
	wrapTool(s, "metered", wrapReturn("ok"), RateLimit(RateLimitOptions{Limit: 5, Window: time.Second, MaxKeys: 2, Key: wrapPrincipal}))
	call := func(principal string, id int) string {
		return string(s.Dispatch(wrapAs(principal), []byte(wrapCall(id, "metered", `{}`)), nil))
	}

	assert.Equal(t, wrapOK(1, "ok"), call("a", 1))
	clock.advance(500 * time.Millisecond)
	assert.Equal(t, wrapOK(2, "ok"), call("b", 2))
	assert.Equal(t, wrapRefused(3, "Component rate key capacity reached"), call("c", 3))
	assert.Equal(t, wrapOK(4, "ok"), call("a", 4), "a tracked key is still served")

	clock.advance(500 * time.Millisecond) // a's window ended; b's has not
	assert.Equal(t, wrapOK(5, "ok"), call("c", 5), "a was forgotten to make room")
	assert.Equal(t, wrapRefused(6, "Component rate key capacity reached"), call("d", 6))
	clock.advance(time.Second)
	assert.Equal(t, wrapOK(7, "ok"), call("d", 7))
	assert.Equal(t, wrapOK(8, "ok"), call("a", 8))
}

func TestRateLimitDefaults(t *testing.T) {
	s, _ := wrapServer(t, nil)
	clock := newWrapClock(s)
	nop := func(context.Context) error { return nil }
	c := Component{Kind: "tool", Name: "t"}

	w := RateLimit(RateLimitOptions{})
	for i := range DefaultComponentRateLimit {
		require.NoError(t, w.wrap(context.Background(), s, c, nop), "call %d", i)
	}
	assert.Same(t, errRateLimit, w.wrap(context.Background(), s, c, nop))
	clock.advance(DefaultComponentRateWindow - time.Nanosecond)
	assert.Same(t, errRateLimit, w.wrap(context.Background(), s, c, nop))
	clock.advance(time.Nanosecond)
	assert.NoError(t, w.wrap(context.Background(), s, c, nop))

	keyed := RateLimit(RateLimitOptions{Key: func(ctx context.Context) string { return ctx.Value(wrapKey{}).(string) }})
	withKey := func(i int) context.Context {
		return context.WithValue(context.Background(), wrapKey{}, strconv.Itoa(i))
	}
	for i := range DefaultComponentRateKeys {
		require.NoError(t, keyed.wrap(withKey(i), s, c, nop), "key %d", i)
	}
	assert.Same(t, errRateKeyCapacity, keyed.wrap(withKey(-1), s, c, nop))
	assert.NoError(t, keyed.wrap(withKey(0), s, c, nop))
	clock.advance(DefaultComponentRateWindow)
	assert.NoError(t, keyed.wrap(withKey(-1), s, c, nop))
}

func TestTimeoutIgnoredContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := wrapServer(t, nil)
		release, finished := make(chan struct{}), make(chan struct{})
		seen := make(chan context.Context, 1)
		wrapTool(s, "stubborn", func(ctx context.Context, _ *Request, _ json.RawMessage) (ToolResult, error) {
			seen <- ctx
			<-release // ignores ctx
			defer close(finished)
			return ToolResult{Text: "too late"}, nil
		}, Timeout(TimeoutOptions{}))

		start := time.Now()
		assert.Equal(t, wrapRefused(1, "Component timed out"), dispatch(t, s, wrapCall(1, "stubborn", `{}`)))
		assert.Equal(t, DefaultComponentTimeout, time.Since(start), "refused at the deadline, not when the handler returned")
		handlerCtx := <-seen
		deadline, _ := handlerCtx.Deadline()
		assert.Equal(t, start.Add(DefaultComponentTimeout), deadline)
		assert.ErrorIs(t, handlerCtx.Err(), context.DeadlineExceeded)

		close(release) // its result is discarded, and its goroutine ends (synctest.Test waits for it)
		<-finished
	})
}

func TestTimeoutCooperativeHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := wrapServer(t, nil)
		wrapTool(s, "polite", func(ctx context.Context, _ *Request, _ json.RawMessage) (ToolResult, error) {
			<-ctx.Done()
			return ToolResult{}, ctx.Err()
		}, Timeout(TimeoutOptions{Timeout: 250 * time.Millisecond}))
		wrapTool(s, "wrapped", func(ctx context.Context, _ *Request, _ json.RawMessage) (ToolResult, error) {
			<-ctx.Done()
			return ToolResult{}, errors.Join(errors.New("gave up"), ctx.Err())
		}, Timeout(TimeoutOptions{Timeout: time.Second}))

		start := time.Now()
		assert.Equal(t, wrapRefused(1, "Component timed out"), dispatch(t, s, wrapCall(1, "polite", `{}`)))
		assert.Equal(t, 250*time.Millisecond, time.Since(start))
		assert.Equal(t, wrapRefused(2, "Component timed out"), dispatch(t, s, wrapCall(2, "wrapped", `{}`)))
	})
}

func TestTimeoutPassesResults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := wrapServer(t, nil)
		wrapTool(s, "quick", func(ctx context.Context, _ *Request, args json.RawMessage) (ToolResult, error) {
			time.Sleep(time.Second)
			d, ok := ctx.Deadline()
			require.True(t, ok)
			return ToolResult{Text: string(args) + " " + time.Until(d).String()}, nil
		}, Timeout(TimeoutOptions{Timeout: 3 * time.Second}))
		wrapTool(s, "failing", func(context.Context, *Request, json.RawMessage) (ToolResult, error) {
			return ToolResult{}, errors.New("domain failure")
		}, Timeout(TimeoutOptions{}))
		wrapTool(s, "protocol", func(context.Context, *Request, json.RawMessage) (ToolResult, error) {
			return ToolResult{}, NewError(-32042, "Quota exceeded", json.RawMessage(`{"retryAfterMs":1000}`))
		}, Timeout(TimeoutOptions{}))

		assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"{\"a\":1} 2s"}],`+serverInfoMeta+`}}`,
			dispatch(t, s, wrapCall(1, "quick", `{"a":1}`)))
		assert.Equal(t, wrapRefused(2, "domain failure"), dispatch(t, s, wrapCall(2, "failing", `{}`)))
		assert.Equal(t, `{"jsonrpc":"2.0","id":3,"error":{"code":-32042,"message":"Quota exceeded","data":{"retryAfterMs":1000}}}`,
			dispatch(t, s, wrapCall(3, "protocol", `{}`)))
	})
}

func TestTimeoutHandlerPanics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, log := wrapServer(t, nil)
		wrapTool(s, "bomb", func(context.Context, *Request, json.RawMessage) (ToolResult, error) {
			panic("kaboom")
		}, Timeout(TimeoutOptions{}))
		wrapTool(s, "exit", func(context.Context, *Request, json.RawMessage) (ToolResult, error) {
			runtime.Goexit()
			return ToolResult{}, nil
		}, Timeout(TimeoutOptions{}))
		release := make(chan struct{})
		wrapTool(s, "late", func(context.Context, *Request, json.RawMessage) (ToolResult, error) {
			<-release
			panic("late kaboom")
		}, Timeout(TimeoutOptions{Timeout: time.Second}))

		assert.Equal(t, wrapRefused(1, "Component callback failed"), dispatch(t, s, wrapCall(1, "bomb", `{}`)))
		assert.Contains(t, log.String(), "kaboom")
		assert.Contains(t, log.String(), "wrap_test.go", "the stack is logged")
		assert.Equal(t, wrapRefused(2, "Component callback failed"), dispatch(t, s, wrapCall(2, "exit", `{}`)))

		assert.Equal(t, wrapRefused(3, "Component timed out"), dispatch(t, s, wrapCall(3, "late", `{}`)))
		close(release)
		synctest.Wait() // the late panic is recovered on the handler's goroutine
		assert.Contains(t, log.String(), "late kaboom")
	})
}

func TestTimeoutRequestCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := wrapServer(t, nil)
		finished := make(chan struct{})
		wrapTool(s, "stubborn", func(ctx context.Context, _ *Request, _ json.RawMessage) (ToolResult, error) {
			defer close(finished)
			time.Sleep(time.Minute) // ignores ctx
			return ToolResult{Text: "late"}, nil
		}, Timeout(TimeoutOptions{}))

		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(time.Second, cancel)
		start := time.Now()
		assert.Nil(t, s.Dispatch(ctx, []byte(wrapCall(1, "stubborn", `{}`)), nil), "nothing is sent for a cancelled request")
		assert.Equal(t, time.Second, time.Since(start))
		<-finished // the abandoned handler still ends, and its goroutine with it
	})
}

// TestTimeoutOrderWithConcurrency: wrappers declared after Timeout count an abandoned handler
// until it returns; wrappers declared before it stop counting at the refusal.
func TestTimeoutOrderWithConcurrency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := wrapServer(t, nil)
		release := make(chan struct{})
		stubborn := func(context.Context, *Request, json.RawMessage) (ToolResult, error) {
			<-release
			return ToolResult{Text: "done"}, nil
		}
		wrapTool(s, "inner", stubborn, Timeout(TimeoutOptions{Timeout: time.Second}), Concurrency(ConcurrencyOptions{Limit: 1}))
		wrapTool(s, "outer", stubborn, Concurrency(ConcurrencyOptions{Limit: 1}), Timeout(TimeoutOptions{Timeout: time.Second}))

		assert.Equal(t, wrapRefused(1, "Component timed out"), dispatch(t, s, wrapCall(1, "inner", `{}`)))
		assert.Equal(t, wrapRefused(2, "Component concurrency limit reached"), dispatch(t, s, wrapCall(2, "inner", `{}`)))
		assert.Equal(t, wrapRefused(3, "Component timed out"), dispatch(t, s, wrapCall(3, "outer", `{}`)))
		assert.Equal(t, wrapRefused(4, "Component timed out"), dispatch(t, s, wrapCall(4, "outer", `{}`)), "the permit came back at the refusal")

		close(release)
		synctest.Wait()
		assert.Equal(t, wrapOK(5, "done"), dispatch(t, s, wrapCall(5, "inner", `{}`)), "the permit came back when the handler returned")
	})
}

// TestTimeoutDetachesRequest: a handler that outlives its timeout reads its own copy of the
// request, and its notifications stop once the call is answered.
func TestTimeoutDetachesRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := wrapServer(t, nil)
		release := make(chan struct{})
		type seen struct {
			args, meta, id string
			early, late    error
		}
		out := make(chan seen, 1)
		wrapTool(s, "lingering", func(ctx context.Context, r *Request, args json.RawMessage) (ToolResult, error) {
			var v seen
			v.early = r.Progress(ctx, 1, 0, "")
			<-release
			v.args, v.meta, v.id = string(args), string(r.Meta()), string(r.ID())
			v.late = r.Progress(context.Background(), 2, 0, "")
			out <- v
			return ToolResult{Text: "discarded"}, nil
		}, Timeout(TimeoutOptions{Timeout: time.Second}))

		msg := []byte(`{"jsonrpc":"2.0","id":"req-1","method":"tools/call","params":{"name":"lingering","arguments":{"q":"v"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p1"}}}`)
		sink := &recordingSink{}
		got := string(s.Dispatch(context.Background(), msg, sink))
		assert.Equal(t, `{"jsonrpc":"2.0","id":"req-1","result":{"resultType":"complete","content":[{"type":"text","text":"Component timed out"}],"isError":true,`+serverInfoMeta+`}}`, got)

		for i := range msg {
			msg[i] = 'x' // the transport reuses its buffer
		}
		close(release)
		v := <-out
		assert.Equal(t, `{"q":"v"}`, v.args)
		assert.Equal(t, `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p1"}`, v.meta)
		assert.Equal(t, `"req-1"`, v.id)
		assert.NoError(t, v.early)
		assert.ErrorIs(t, v.late, context.Canceled)
		assert.Equal(t, []string{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1}}`}, sink.messages())
	})
}

// TestTimeoutGatedSinkCancelsInFlight: answering the call cancels a notification the
// abandoned handler is writing, and waits for it.
func TestTimeoutGatedSinkCancelsInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inner := &wrapBlockingSink{entered: make(chan struct{})}
		g := newGatedSink(inner)
		result := make(chan error)
		go func() { result <- g.Notify(context.Background(), []byte(`{}`)) }()
		<-inner.entered
		g.close()
		assert.ErrorIs(t, <-result, context.Canceled)
		assert.ErrorIs(t, g.Notify(context.Background(), []byte(`{}`)), context.Canceled)
	})
}

// wrapBlockingSink blocks every notification until its context ends.
type wrapBlockingSink struct{ entered chan struct{} }

func (k *wrapBlockingSink) Notify(ctx context.Context, _ []byte) error {
	close(k.entered)
	<-ctx.Done()
	return ctx.Err()
}

func BenchmarkWrapper(b *testing.B) {
	s, _ := wrapServer(b, nil)
	c := Component{Kind: "tool", Name: "t"}
	nop := func(context.Context) error { return nil }
	for _, bc := range []struct {
		name string
		w    Wrapper
	}{
		{"wrapper=timeout", Timeout(TimeoutOptions{})},
		{"wrapper=concurrency", Concurrency(ConcurrencyOptions{})},
		{"wrapper=ratelimit", RateLimit(RateLimitOptions{Limit: 1 << 30})},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			ctx := context.Background()
			for b.Loop() {
				if err := bc.w.wrap(ctx, s, c, nop); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
