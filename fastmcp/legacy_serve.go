package fastmcp

import (
	"context"
	"errors"

	"github.com/fastmcp-go/fastmcp/decode"
)

var errTooManyRounds = &Error{Code: CodeInternalError, Message: "Too many input rounds"}

// handleLegacy serves m in c.Dialect and runs the rounds of
// server-to-client requests a handler asks for (see legacyRound); pre is what an Observer's
// labelling already looked up of m.
func (s *Server) handleLegacy(ctx context.Context, m *decode.Message, c *ConnState, sink Sink, dst []byte, pre resolved) Reply {
	switch m.Kind() {
	case decode.KindRequest:
	case decode.KindInvalid:
		return Reply{Body: appendError(dst, echoID(m), ErrInvalidRequest), Err: ErrInvalidRequest}
	default:
		return Reply{} // notifications are the transport's (cancellation); responses go to Answer
	}
	method := m.Method().Text()
	if body, ok := s.serveLegacyPrecomputed(m, c, method, dst); ok {
		return Reply{Body: body}
	}
	r := &Request{server: s, msg: m, sink: sink, cat: s.catalog.Load(), logLevel: c.LogLevel, dialect: c.Dialect, client: c}
	pre.adopt(r)
	for round := 0; ; round++ {
		body, err := s.serveLegacy(ctx, r, method, dst)
		ir, ok := errors.AsType[*InputRequired](err)
		if ok {
			if round == s.cfg.MaxInputRounds {
				err = errTooManyRounds
			} else if body, err = s.legacyRound(ctx, r, ir, dst); body == nil && err == nil {
				continue // answered: the handler runs again with the answers
			}
		}
		switch {
		case errors.Is(err, ErrCannotWait):
			return Reply{Rerun: true}
		case err == nil:
			return Reply{Body: body, State: r.newClient, ToolError: r.toolError}
		case ctx.Err() != nil && isCancellation(err):
			return Reply{}
		}
		e := asError(err)
		return Reply{Body: appendError(dst, m.ID().Raw(), e), Err: e}
	}
}

// legacyRound sends the requests of ir to the client and waits for its answers (see
// bridgeInput), which the handler then reads (Request.InputResponse), with ir.State as its
// state: it returns nil, nil for the handler to run again. An input the client cannot give
// (a capability its initialize did not declare or its revision lacks, or a transport that
// carries no requests) ends the request: a tool's result is an isError result saying so,
// which the model can act on; a prompt or a resource answers the error (-32021 with
// data.requiredCapabilities, or -32603).
func (s *Server) legacyRound(ctx context.Context, r *Request, ir *InputRequired, dst []byte) ([]byte, error) {
	answers, err := s.bridgeInput(ctx, r, r.client, r.sink, ir)
	if err != nil {
		if e, ok := errors.AsType[*Error](err); ok && r.method == MethodToolsCall &&
			(e.Code == CodeMissingCapability || e == errNoRequester) {
			return s.legacyToolRefusal(dst, r, e)
		}
		return nil, err
	}
	for key, req := range ir.Requests {
		if a := decode.Lookup(answers.results, key); a.Present() && !validAnswer(inputKindOf(req.Method), a.Raw()) {
			return nil, errResponseShape
		}
	}
	r.answers, r.state = answers, ir.State
	return nil, nil
}

// legacyToolRefusal answers a tools/call whose input the client cannot give with an isError
// result: the tool ran, and the model reads why it could not finish.
func (s *Server) legacyToolRefusal(dst []byte, r *Request, refusal *Error) ([]byte, error) {
	text := refusal.Message
	if refusal.Data != nil {
		text += ": " + string(decode.Lookup(refusal.Data, "requiredCapabilities").Raw())
	}
	dst = r.beginResult(dst)
	dst = append(dst, `,"content":[`...)
	dst = appendTextBlock(dst, text)
	dst = append(dst, `],"isError":true`...)
	return r.endResult(dst, nil), nil
}

// serveLegacyPrecomputed answers the first page of tools/list from bytes precomputed per
// catalog snapshot and dialect, as handle does for 2026-07-28, without allocating.
func (s *Server) serveLegacyPrecomputed(m *decode.Message, c *ConnState, method, dst []byte) ([]byte, bool) {
	if string(method) != MethodToolsList || s.cfg.Authorizer != nil || m.Cursor().Present() || legacyParams(m, c.Dialect) != nil {
		return nil, false
	}
	cat := s.catalog.Load()
	if cat.kinds&kindTool == 0 {
		return nil, false
	}
	v, ok := cat.pages(c.Dialect).Load("tools")
	if !ok {
		return nil, false
	}
	return appendResult(dst, m.ID().Raw(), v.([]byte)), true
}
