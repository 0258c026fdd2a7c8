package fastmcp

import (
	"context"
)

// Wrapper is a component wrapper: middleware around one tool, resource or prompt handler. It
// runs after authorization and argument validation; the first wrapper declared runs
// outermost. Use [Timeout], [Concurrency] and [RateLimit].
type Wrapper struct {
	name string
	wrap func(ctx context.Context, s *Server, c Component, next func(context.Context) error) error
	err  error // an invalid option, reported at registration
}

func (w Wrapper) validate() error { return w.err }

// wrapperError is a wrapper's refusal: a tool sees it as an isError result, a resource or
// prompt as -32603 with the message.
type wrapperError struct{ msg string }

func (e *wrapperError) Error() string { return "fastmcp: " + e.msg }

// runWrapped runs handler inside the wrappers, the first outermost.
func runWrapped(ctx context.Context, s *Server, ws []Wrapper, c Component, handler func(context.Context) error) error {
	next := handler
	for i := len(ws) - 1; i >= 0; i-- {
		w, inner := ws[i], next
		next = func(ctx context.Context) error { return w.wrap(ctx, s, c, inner) }
	}
	return next(ctx)
}
