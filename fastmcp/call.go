package fastmcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/bytedance/sonic"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/internal/jsonschema"
)

var (
	errToolName      = &Error{Code: CodeInvalidParams, Message: "Invalid params: name must be a non-empty string"}
	errArgumentsType = &Error{Code: CodeInvalidParams, Message: "Invalid params: arguments must be an object"}
)

// callTool serves tools/call: lookup, authorization, the multi round-trip state, argument
// validation, wrappers and handler, and the result's shape.
func (s *Server) callTool(ctx context.Context, r *Request, dst []byte) ([]byte, error) {
	m := r.msg
	name := m.Name()
	if name.Type() != decode.TypeString || len(name.Text()) == 0 {
		return nil, errToolName
	}
	args := m.Arguments()
	raw := args.Raw()
	switch args.Type() {
	case decode.TypeAbsent:
		raw = []byte("{}")
	case decode.TypeObject:
	default:
		return nil, errArgumentsType
	}
	t := r.tool
	if t == nil {
		t = r.cat.tools[string(name.Text())]
	}
	if t == nil || r.dialect.Legacy() && !t.legacy {
		return nil, unknownTool(name) // a tool the dialect cannot express is hidden from it
	}
	if !r.deferred { // Server.RunTool's call was authorized when the work was deferred
		if err := s.authorizeInvocation(ctx, r.method, t.component(), func() *Error { return unknownTool(name) }); err != nil {
			return nil, err
		}
	}
	if err := s.openState(ctx, r, t.name, raw); err != nil {
		return nil, err
	}
	if x := s.ext.Load(); x != nil && x.call != nil && !r.deferred && !r.dialect.Legacy() {
		if body, done, err := s.takeToolCall(ctx, r, t, raw, x.call, dst); done {
			return body, err
		}
	}
	if t.checked == nil {
		if err := t.input.ValidateDecodedContext(ctx, raw); err != nil {
			if isCancellation(err) {
				return nil, err
			}
			return s.appendToolResult(dst, r, t, invalidArguments(err))
		}
	}
	res, err := run(ctx, r, &opTool, &t.inv, t.handler(), raw)
	if err != nil {
		if we, ok := errors.AsType[*wrapperError](err); ok {
			res = ErrorResult(we.msg) // a wrapper's refusal is a result the model sees
		} else if ir, ok := errors.AsType[*InputRequired](err); ok {
			return s.appendInputRequired(ctx, dst, r, t.name, raw, ir)
		} else if _, ok := errors.AsType[*Error](err); ok || ctx.Err() != nil {
			return nil, err
		} else {
			res = ErrorResult(err.Error())
		}
	}
	return s.appendToolResult(dst, r, t, res)
}

func unknownTool(name decode.Value) *Error {
	return &Error{Code: CodeInvalidParams, Message: "Unknown tool: " + name.String()}
}

// invalidArguments is the result for arguments the input schema refused.
func invalidArguments(err error) ToolResult {
	return ToolResult{Text: validationMessage(err), IsError: true}
}

func validationMessage(err error) string {
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		return "Invalid " + ve.Error() // "Invalid arguments: /text: expected string, got number"
	}
	return "Invalid arguments"
}

// appendToolResult writes a complete tools/call result, validating structured output against
// the tool's output schema. Raw JSON from the handler (structuredContent, the _meta objects)
// must be valid and is sent on one line: _meta objects compacted, a json.RawMessage
// structuredContent compacted when it spans lines.
func (s *Server) appendToolResult(dst []byte, r *Request, t *toolEntry, res ToolResult) ([]byte, error) {
	r.toolError = res.IsError
	invalid := func(why string, err error) ([]byte, error) {
		s.cfg.Logger.Error("fastmcp: tool returned an invalid result", "tool", t.name, "why", why, "err", err)
		return nil, errInvalidResult
	}
	var structured []byte
	if res.Structured != nil {
		if raw, ok := res.Structured.(json.RawMessage); ok {
			// An output schema validates it below (which parses it), unless IsError.
			if (t.output == nil || res.IsError) && !json.Valid(raw) {
				return invalid("structuredContent", errors.New("not valid JSON"))
			}
			if bytes.ContainsAny(raw, "\r\n") { // only whitespace can hold a raw line break
				c, err := compactJSON(raw)
				if err != nil {
					return invalid("structuredContent", err)
				}
				raw = c
			}
			structured = raw
		} else {
			enc, err := sonic.Marshal(res.Structured)
			if err != nil {
				return nil, errInvalidResult
			}
			structured = enc
		}
	}
	if t.output != nil && !res.IsError {
		if structured == nil || t.output.Validate(structured) != nil {
			return nil, errOutputSchema
		}
	}
	if structured != nil && r.dialect.Legacy() && !isJSONObject(structured) {
		structured = nil // the initialize-era revisions only carry an object
	}
	meta, err := metaObject(res.Meta)
	if err != nil {
		return invalid("result _meta", err)
	}
	content, cloned := res.Content, false
	for i := range content {
		if content[i].Meta == nil && (content[i].resource == nil || content[i].resource.Meta == nil) {
			continue
		}
		if !cloned { // clean copies: the handler's values are left alone
			content, cloned = slices.Clone(content), true
		}
		if err := cleanContent(&content[i]); err != nil {
			return invalid("content", fmt.Errorf("block %d: %w", i, err))
		}
	}
	dst = r.beginResult(dst)
	dst = append(dst, `,"content":[`...)
	n := 0
	if res.Text != "" || len(res.Content) == 0 && structured == nil {
		dst = appendTextBlock(dst, res.Text)
		n++
	}
	for i := range content {
		if n > 0 {
			dst = append(dst, ',')
		}
		dst = appendContent(dst, &content[i])
		n++
	}
	dst = append(dst, ']')
	if structured != nil {
		dst = append(dst, `,"structuredContent":`...)
		dst = append(dst, structured...)
	}
	if res.IsError {
		dst = append(dst, `,"isError":true`...)
	}
	return r.endResult(dst, meta), nil
}
