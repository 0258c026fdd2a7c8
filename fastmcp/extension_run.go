package fastmcp

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/fastmcp-go/fastmcp/decode"
)

// ToolRun is a tools/call served outside any transport request: work an extension deferred,
// such as a task, run (or rerun after a restart) from what it stored.
type ToolRun struct {
	// Tool is the tool's name; Arguments the arguments object (nil: {}).
	Tool      string
	Arguments json.RawMessage
	// Meta is the params._meta of the request that created the work: its protocol version,
	// client capabilities and client info, which the handler sees again.
	Meta json.RawMessage
	// InputResponses are the answers the handler reads with [Request.InputResponse]: a JSON
	// object by key, or nil.
	InputResponses json.RawMessage
}

// ToolOutcome is how a [Server.RunTool] ended: exactly one of its fields is set.
type ToolOutcome struct {
	// Result is the CallToolResult object (isError results included), with the server's _meta.
	Result json.RawMessage
	// Input is the handler's request for input: its Requests are checked against the client
	// capabilities of ToolRun.Meta.
	Input *InputRequired
	// Err is the JSON-RPC error the call ended with (the tool is unknown, the handler
	// returned an *Error or panicked, ctx ended: then [ErrInternal]).
	Err *Error
}

// runResponsePrefix is the start of the response RunTool's message gets.
const runResponsePrefix = envelopeID + "0" + envelopeResult

// RunTool serves a tools/call built from run, with no sink (progress and log messages go
// nowhere): the tool's lookup, argument validation, wrappers and handler, but no
// authorization (the caller authorized the call when it deferred it). No extension takes it
// over. The identity (see [WithIdentity]) and any values the handler relies on travel in
// ctx.
func (s *Server) RunTool(ctx context.Context, run ToolRun) ToolOutcome {
	msg := append(make([]byte, 0, 96+len(run.Tool)+len(run.Arguments)+len(run.Meta)+len(run.InputResponses)),
		`{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":`...)
	msg = decode.AppendString(msg, run.Tool, false)
	if run.Arguments != nil {
		msg = append(append(msg, `,"arguments":`...), run.Arguments...)
	}
	if run.Meta != nil {
		msg = append(append(msg, `,"_meta":`...), run.Meta...)
	}
	if run.InputResponses != nil {
		msg = append(append(msg, `,"inputResponses":`...), run.InputResponses...)
	}
	msg = append(msg, "}}"...)
	m := new(decode.Message)
	if err := s.decoder.Decode(m, msg); err != nil {
		return ToolOutcome{Err: asError(err)}
	}
	r := newRequest(s, m, nil)
	r.method = MethodToolsCall
	r.deferred = true
	if r.cat.kinds&kindTool == 0 {
		return ToolOutcome{Err: ErrMethodNotFound}
	}
	if err := s.checkMeta(r); err != nil {
		return ToolOutcome{Err: err}
	}
	body, err := s.callTool(ctx, r, nil)
	if err != nil {
		if ir, ok := errors.AsType[*InputRequired](err); ok {
			return ToolOutcome{Input: ir}
		}
		if ctx.Err() != nil && isCancellation(err) {
			return ToolOutcome{Err: ErrInternal}
		}
		return ToolOutcome{Err: asError(err)}
	}
	return ToolOutcome{Result: body[len(runResponsePrefix) : len(body)-1]}
}

// checkDeferredInput checks a deferred run's input requests as appendInputRequired checks
// those of a response: known methods, valid params, capabilities the client declared.
func (s *Server) checkDeferredInput(r *Request, ir *InputRequired) error {
	var missing capabilitySet
	for k, req := range ir.Requests {
		if inputKindOf(req.Method) == 0 || !json.Valid(req.Params) {
			s.cfg.Logger.Error("fastmcp: invalid input request", "method", r.method, "key", k, "input", req.Method)
			return errInvalidResult
		}
		missing.need(req, r.msg.ClientCapabilities().Raw())
	}
	if !missing.empty() {
		return missing.error()
	}
	return ir
}
