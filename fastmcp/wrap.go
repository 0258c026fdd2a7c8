package fastmcp

import (
	"context"
	"errors"
	"runtime/debug"
	"time"
)

// Defaults of the component wrappers.
const (
	// DefaultComponentTimeout bounds one call of a component under [Timeout].
	DefaultComponentTimeout = 5 * time.Second
	// DefaultComponentConcurrency is the number of calls in flight per component and key that
	// [Concurrency] admits.
	DefaultComponentConcurrency = 32
	// DefaultComponentRateLimit is the number of calls per window, component and key that
	// [RateLimit] admits.
	DefaultComponentRateLimit = 60
	// DefaultComponentRateWindow is the length of a [RateLimit] window.
	DefaultComponentRateWindow = 60 * time.Second
	// DefaultComponentRateKeys bounds the keys one [RateLimit] tracks per component.
	DefaultComponentRateKeys = 10000
)

// Wrapper is a component wrapper: middleware around one tool, resource or prompt handler,
// opted into per component (Tool.Wrap). Make one with [Timeout], [Concurrency] or [RateLimit];
// the zero Wrapper is invalid.
//
// Wrappers run after authorization and argument validation, so a refused or malformed call
// never reaches them; the first declared runs outermost. A wrapper refuses a call with a fixed
// message: a tool answers it as an isError result, a resource or a prompt as -32603 with the
// message. Invalid options make registration panic.
//
// A Wrapper keeps its state (counters, windows) inside: every call of the components it is
// registered on shares it, each component with its own counts, so one Wrapper value may be
// declared on several components. It is safe for concurrent use.
type Wrapper struct {
	name string
	wrap func(ctx context.Context, s *Server, c Component, next func(context.Context) error) error
	// detach is set when wrap runs next on another goroutine that may outlive the request
	// ([Timeout]): the handler then gets a Request and arguments that own their bytes.
	detach bool
	err    error // an invalid option, reported at registration
}

var errZeroWrapper = errors.New("wrapper: the zero Wrapper does nothing; use Timeout, Concurrency or RateLimit")

// An invalid option of a wrapper is reported under its name: "wrapper Timeout: Timeout -1s is
// negative".
var (
	errInvalidTimeout     = errors.New("wrapper Timeout")
	errInvalidConcurrency = errors.New("wrapper Concurrency")
	errInvalidRateLimit   = errors.New("wrapper RateLimit")
)

func (w Wrapper) validate() error {
	switch {
	case w.err != nil:
		return w.err
	case w.wrap == nil:
		return errZeroWrapper
	}
	return nil
}

// wrapperError is a wrapper's refusal: a tool sees it as an isError result, a resource or
// prompt as -32603 with the message.
type wrapperError struct{ msg string }

func (e *wrapperError) Error() string { return "fastmcp: " + e.msg }

// The refusals of the wrappers.
var (
	errComponentTimedOut       = &wrapperError{"Component timed out"}
	errComponentCallbackFailed = &wrapperError{"Component callback failed"}
	errConcurrencyLimit        = &wrapperError{"Component concurrency limit reached"}
	errConcurrencyKey          = &wrapperError{"Component concurrency key failed"}
	errRateLimit               = &wrapperError{"Component rate limit reached"}
	errRateKeyCapacity         = &wrapperError{"Component rate key capacity reached"}
	errRateKey                 = &wrapperError{"Component rate key failed"}
)

// runWrapped runs handler inside the wrappers, the first outermost. When detached(ws) holds,
// the handler may still be running after runWrapped returned: it must then use a Request and
// arguments that own their bytes (see [Request.detach]).
func runWrapped(ctx context.Context, s *Server, ws []Wrapper, c Component, handler func(context.Context) error) error {
	next := handler
	for i := len(ws) - 1; i >= 0; i-- {
		w, inner := ws[i], next
		next = func(ctx context.Context) error { return w.wrap(ctx, s, c, inner) }
	}
	return next(ctx)
}

// detached reports whether one of ws runs the handler on a goroutine that may outlive the
// request.
func detached(ws []Wrapper) bool {
	for i := range ws {
		if ws[i].detach {
			return true
		}
	}
	return false
}

// componentID is what per-component wrapper state is keyed by: a template's state is shared
// by every URI read through it.
type componentID struct{ kind, name, uri string }

func idOf(c Component) componentID { return componentID{c.Kind, c.Name, c.URI} }

// callKey runs a wrapper's key function, if any, turning a panic into ok == false (logged with
// its stack).
func callKey(ctx context.Context, s *Server, c Component, wrapper string, key func(context.Context) string) (k string, ok bool) {
	if key == nil {
		return "", true
	}
	defer func() {
		if p := recover(); p != nil {
			s.cfg.Logger.Error("fastmcp: wrapper key function panicked", "wrapper", wrapper, "kind", c.Kind,
				"component", c.Name, "panic", p, "stack", string(debug.Stack()))
			k, ok = "", false
		}
	}()
	return key(ctx), true
}
