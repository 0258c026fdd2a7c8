package fastmcp

import (
	"context"
	"errors"
)

// takeToolCall offers a tools/call to the extension that takes over calls, once the tool is
// looked up and the call authorized. done reports whether the extension answered it (or the
// arguments were refused on its way): then body and err are the answer.
func (s *Server) takeToolCall(ctx context.Context, r *Request, t *toolEntry, args []byte, hook *ToolCallHook, dst []byte) (body []byte, done bool, err error) {
	take, err := hook.Take(ctx, r, t.name)
	if err != nil {
		return nil, true, err
	}
	if !take {
		return nil, false, nil
	}
	if err := t.input.ValidateDecodedContext(ctx, args); err != nil {
		if isCancellation(err) {
			return nil, true, err
		}
		body, err := s.appendToolResult(dst, r, t, invalidArguments(err))
		return body, true, err
	}
	res, err := hook.Start(ctx, r, t.name, args)
	if ir, ok := errors.AsType[*InputRequired](err); ok { // a round before the extension's answer
		body, err := s.appendInputRequired(ctx, dst, r, t.name, args, ir)
		return body, true, err
	}
	if err != nil {
		return nil, true, err
	}
	body, err = s.appendObjectResult(dst, r.ID(), res)
	return body, true, err
}
