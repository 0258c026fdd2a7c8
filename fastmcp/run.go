package fastmcp

import (
	"context"
	"encoding/json"
	"runtime/debug"
)

// An operation is one of the ways the core calls a component's handler, whose input is an In:
// how a panic there is logged, and what the client sees instead (a -32603, never the panic's
// text).
type operation[In any] struct {
	panicLog string // the log message, with the panic value and the stack
	nameKey  string // the log attribute that names the component
	panicked *Error
	// detach, if set, returns in for a handler that runs on the detached request d: what in
	// borrows from the request, taken from d's own bytes. Without it, in owns its bytes.
	detach func(d *Request, in In) In
}

// The operations that call handlers.
var (
	opTool = operation[json.RawMessage]{"fastmcp: tool panicked", "tool", errToolPanicked,
		func(d *Request, args json.RawMessage) json.RawMessage { return d.arguments(args) }}
	opPrompt   = operation[map[string]string]{"fastmcp: prompt panicked", "prompt", errHandlerPanicked, nil}
	opRead     = operation[readCall]{"fastmcp: resource handler panicked", "uri", errHandlerPanicked, nil}
	opComplete = operation[completeCall]{"fastmcp: completion handler panicked", "component", errHandlerPanicked, nil}
)

// invocation is one call of a component, besides its handler and the handler's input.
type invocation struct {
	c    Component // what the wrappers keep their state by
	name string    // names the component in the log of a panic
	wrap []Wrapper
}

// run is the component runner, through which every handler call goes: it calls h(ctx, r, in)
// inside the component's wrappers (the first outermost), and turns a panic on this goroutine
// into the operation's error, logged with its stack. When a wrapper may let the handler
// outlive the request ([Timeout]), h gets a detached copy of r that owns its bytes (see
// [Request.detach]), released once the wrappers have returned, and the input op.detach
// gives it.
//
// h is a handler or a function, not a closure made for the call: the wrappers keep it, so
// such a closure would be allocated on every call, wrapped or not.
func run[In, Out any](ctx context.Context, r *Request, op *operation[In], inv *invocation, h func(context.Context, *Request, In) (Out, error), in In) (out Out, err error) {
	defer func() {
		if p := recover(); p != nil {
			r.server.cfg.Logger.Error(op.panicLog, op.nameKey, inv.name, "panic", p, "stack", string(debug.Stack()))
			var zero Out
			out, err = zero, op.panicked
		}
	}()
	switch {
	case len(inv.wrap) == 0:
		return h(ctx, r, in)
	case detached(inv.wrap): // the handler may outlive the request: give it bytes of its own
		d, release := r.detach()
		defer release()
		if op.detach != nil {
			in = op.detach(d, in)
		}
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
