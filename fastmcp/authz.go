package fastmcp

import (
	"context"
	"errors"
	"fmt"
)

// Phase is when an authorization policy is asked.
type Phase uint8

const (
	// PhaseDiscovery: listing (tools/list, prompts/list, resources/list,
	// resources/templates/list). A refused component is left out of the list, before paging.
	PhaseDiscovery Phase = iota + 1
	// PhaseInvocation: tools/call, prompts/get, resources/read, completion/complete and the
	// resources of a subscription. A refusal answers the policy's error, before argument
	// validation and before any handler or wrapper runs.
	PhaseInvocation
)

func (p Phase) String() string {
	switch p {
	case PhaseDiscovery:
		return "discovery"
	case PhaseInvocation:
		return "invocation"
	}
	return "unknown"
}

// Component identifies what a policy is asked about.
type Component struct {
	// Kind is "tool", "prompt", "resource" or "resource_template".
	Kind string
	// Name is the component's name (a resource's or template's name too).
	Name string
	// URI is a resource's URI or a template's URI template.
	URI string
	// RequestedURI is the concrete URI being read or subscribed to, for a template on
	// invocation; empty otherwise.
	RequestedURI string
}

// Authorizer decides, per component and phase, what the caller may see and invoke. The
// caller's identity is in ctx ([IdentityFrom]), put there by the transport, never taken from
// the request's JSON. Capabilities stay catalog-wide whatever it decides.
type Authorizer interface {
	// Authorize returns nil to allow; an *Error to refuse with that JSON-RPC error (on
	// invocation; on discovery the component is just left out); ErrRefused to refuse with a
	// generic error. Any other error, or a panic, is a policy fault: the request fails with
	// -32603, never with an empty catalog. method is the request's method.
	Authorize(ctx context.Context, phase Phase, method string, c Component) error
}

// AuthorizerFunc adapts a function to [Authorizer].
type AuthorizerFunc func(ctx context.Context, phase Phase, method string, c Component) error

// Authorize calls f.
func (f AuthorizerFunc) Authorize(ctx context.Context, phase Phase, method string, c Component) error {
	return f(ctx, phase, method, c)
}

// ErrRefused is what a policy returns to refuse without choosing the error. The client sees
// -32003 "Access denied" (an application code outside the JSON-RPC reserved range).
var ErrRefused = errors.New("fastmcp: access denied")

// CodeAccessDenied is the code of a refusal a policy did not choose itself.
const CodeAccessDenied Code = -32003

var errAccessDenied = &Error{Code: CodeAccessDenied, Message: "Access denied"}

// authorize asks the policy, if any. It returns (nil, nil) when allowed, (refusal, nil) when
// refused, and (nil, fault) when the policy misbehaved.
func (s *Server) authorize(ctx context.Context, phase Phase, method string, c Component) (refusal *Error, fault error) {
	if s.cfg.Authorizer == nil {
		return nil, nil
	}
	err := func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				s.cfg.Logger.Error("fastmcp: authorization policy panicked", "panic", p, "method", method, "component", c.Name)
				err = errPolicyFault
			}
		}()
		return s.cfg.Authorizer.Authorize(ctx, phase, method, c)
	}()
	var e *Error
	switch {
	case err == nil:
		return nil, nil
	case errors.As(err, &e) && e == nil: // a typed nil: garbage, not a refusal
		s.cfg.Logger.Error("fastmcp: authorization policy returned a nil *Error", "method", method, "component", c.Name)
		return nil, errPolicyFault
	case errors.Is(err, errPolicyFault):
		return nil, errPolicyFault
	case errors.Is(err, ErrRefused):
		return errAccessDenied, nil
	case errors.As(err, &e):
		return e, nil
	}
	s.cfg.Logger.Error("fastmcp: authorization policy failed", "err", err, "method", method, "component", c.Name)
	return nil, fmt.Errorf("%w", errPolicyFault)
}

// authorizeInvocation applies the invocation check; unknown makes the error an unknown
// component gets, used instead of the refusal when refusals are concealed. Without a policy
// it costs nothing, not even the error.
func (s *Server) authorizeInvocation(ctx context.Context, method string, c Component, unknown func() *Error) error {
	if s.cfg.Authorizer == nil {
		return nil
	}
	refusal, fault := s.authorize(ctx, PhaseInvocation, method, c)
	switch {
	case fault != nil:
		return errPolicyFault
	case refusal == nil:
		return nil
	case s.cfg.ConcealRefusals:
		return unknown()
	}
	return refusal
}
