package fastmcp

import (
	"context"
	"runtime/debug"
)

// An operation is one of the ways the core calls a component's handler: how a panic there is
// logged, and what the client sees instead (a -32603, never the panic's text).
type operation struct {
	panicLog string // the log message, with the panic value and the stack
	nameKey  string // the log attribute that names the component
	panicked *Error
}

// The operations that call handlers.
var (
	opTool     = operation{"fastmcp: tool panicked", "tool", errToolPanicked}
	opPrompt   = operation{"fastmcp: prompt panicked", "prompt", errHandlerPanicked}
	opRead     = operation{"fastmcp: resource handler panicked", "uri", errHandlerPanicked}
	opComplete = operation{"fastmcp: completion handler panicked", "component", errHandlerPanicked}
)

// invocation is one call of a component, besides its handler and the handler's input.
type invocation struct {
	op   *operation
	c    Component // what the wrappers keep their state by
	name string    // names the component in the log of a panic
	wrap []Wrapper
}

// run is the component runner, through which every handler call goes: it calls h(ctx, r, in)
// inside the component's wrappers (the first outermost), and turns a panic on this goroutine
// into the operation's error, logged with its stack. When a wrapper may let the handler
// outlive the request ([Timeout]), h gets a detached copy of r that owns its bytes (see
// [Request.detach]), released once the wrappers have returned: so h takes what it borrows
// from the request from the *Request it is given, and in owns its bytes.
//
// h is a function, not a closure: the wrappers keep it, so a closure would be allocated on
// every call, wrapped or not.
func run[In, Out any](ctx context.Context, r *Request, inv *invocation, h func(context.Context, *Request, In) (Out, error), in In) (out Out, err error) {
	defer func() {
		if p := recover(); p != nil {
			r.server.cfg.Logger.Error(inv.op.panicLog, inv.op.nameKey, inv.name, "panic", p, "stack", string(debug.Stack()))
			var zero Out
			out, err = zero, inv.op.panicked
		}
	}()
	switch {
	case len(inv.wrap) == 0:
		return h(ctx, r, in)
	case detached(inv.wrap): // the handler may outlive the request: give it bytes of its own
		d, release := r.detach()
		defer release()
		return runWrappers(ctx, d, inv, h, in)
	}
	return runWrappers(ctx, r, inv, h, in)
}

func runWrappers[In, Out any](ctx context.Context, r *Request, inv *invocation, h func(context.Context, *Request, In) (Out, error), in In) (Out, error) {
	var out Out
	if err := runWrapped(ctx, r.server, inv.wrap, inv.c, func(ctx context.Context) error {
		var err error
		out, err = h(ctx, r, in)
		return err
	}); err != nil {
		var zero Out
		return zero, err // out is not read: a handler abandoned by Timeout may still write it
	}
	return out, nil
}
