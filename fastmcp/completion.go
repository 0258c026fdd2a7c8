package fastmcp

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/fastmcp-go/fastmcp/decode"
)

// Completion is what a completion handler returns: suggestions for an argument's value.
type Completion struct {
	// Values are the suggestions, at most [MaxCompletionValues].
	Values []string
	// Total is the number of suggestions there are in all, which may exceed len(Values). If
	// zero, it is not sent; otherwise it must be at least len(Values).
	Total int
	// HasMore reports that there are suggestions beyond Values, even when Total is unknown.
	HasMore bool
}

// CompletionHandler suggests values for one argument of a prompt, or one variable of a
// resource template: argument is its name (one the prompt declares, or a variable of the
// template), value what the user typed so far, and context the values of the other arguments
// the client already knows (nil when it sent none). It returns the suggestions; an *Error to
// answer with a JSON-RPC error; or any other error, which the client sees as a generic -32603
// "Completion failed" (the error is logged, never sent). Completion cannot ask for input: an
// *InputRequired is a server bug, answered with -32603.
type CompletionHandler func(ctx context.Context, r *Request, argument, value string, context map[string]string) (Completion, error)

// CompletePrefix returns the candidates that start with prefix, in their order: the first
// [MaxCompletionValues] of them, with Total and HasMore set accordingly.
func CompletePrefix(candidates []string, prefix string) Completion {
	var c Completion
	for _, v := range candidates {
		if !strings.HasPrefix(v, prefix) {
			continue
		}
		c.Total++
		if len(c.Values) < MaxCompletionValues {
			c.Values = append(c.Values, v)
		}
	}
	c.HasMore = c.Total > len(c.Values)
	return c
}

var (
	errCompleteRef     = &Error{Code: CodeInvalidParams, Message: "Invalid params: ref must be a ref/prompt with a name or a ref/resource with a uri"}
	errCompleteArg     = &Error{Code: CodeInvalidParams, Message: "Invalid params: argument must have a name and a value, both strings"}
	errCompleteContext = &Error{Code: CodeInvalidParams, Message: "Invalid params: context.arguments must be an object of strings"}
	errCompleteFail    = &Error{Code: CodeInternalError, Message: "Completion failed"}
)

func unknownTemplate(uri string) *Error {
	return &Error{Code: CodeInvalidParams, Message: "Unknown resource template: " + uri}
}

// notCompletable is -32602 with data {"argument":...,"referenceType":...}.
func notCompletable(argument, refType string) *Error {
	data := append([]byte(`{"argument":`), decode.AppendString(nil, argument, false)...)
	data = append(data, `,"referenceType":"`...)
	data = append(data, refType...)
	data = append(data, `"}`...)
	return &Error{Code: CodeInvalidParams, Message: "Argument does not support completion", Data: data}
}

// completeTarget is the component a completion/complete request refers to.
type completeTarget struct {
	c        Component
	refType  string
	complete CompletionHandler
	wrap     []Wrapper
	declared bool // whether the component declares the argument
	unknown  *Error
}

// completeParams holds the decoded params of completion/complete.
type completeParams struct {
	argument, value string
	context         map[string]string
}

// complete serves completion/complete: params shape, lookup, authorization, whether the
// argument completes, wrappers and handler, and the result's shape.
func (s *Server) complete(ctx context.Context, r *Request, dst []byte) ([]byte, error) {
	params := r.msg.Params().Raw()
	p, perr := parseCompleteParams(params)
	if perr != nil {
		return nil, perr
	}
	t, terr := resolveRef(r.cat, decode.Lookup(params, "ref"), p.argument)
	if terr != nil {
		return nil, terr
	}
	if err := s.authorizeInvocation(ctx, r.method, t.c, func() *Error { return t.unknown }); err != nil {
		return nil, err
	}
	if t.complete == nil || !t.declared {
		return nil, notCompletable(p.argument, t.refType)
	}
	res, err := run(ctx, r, &opComplete, &invocation{t.c, t.c.Name, t.wrap}, invokeComplete, completeCall{t.complete, p})
	if err != nil {
		var ir *InputRequired
		if errors.As(err, &ir) {
			s.cfg.Logger.Error("fastmcp: completion handler asked for input", "component", t.c.Name)
			return nil, errInputNotPermitted
		}
		return nil, s.handlerError(ctx, err, errCompleteFail, "fastmcp: completion failed", "component", t.c.Name, "argument", p.argument)
	}
	if len(res.Values) > MaxCompletionValues || res.Total != 0 && res.Total < len(res.Values) {
		s.cfg.Logger.Error("fastmcp: completion handler returned an invalid result", "component", t.c.Name,
			"values", len(res.Values), "total", res.Total)
		return nil, errInvalidResult
	}
	dst = r.beginResult(dst)
	dst = append(dst, `,"completion":{"values":[`...)
	for i, v := range res.Values {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = decode.AppendString(dst, v, false)
	}
	dst = append(dst, ']')
	if res.Total != 0 {
		dst = append(dst, `,"total":`...)
		dst = strconv.AppendInt(dst, int64(res.Total), 10)
	}
	if res.HasMore {
		dst = append(dst, `,"hasMore":true`...)
	}
	dst = append(dst, '}')
	return r.endResult(dst, nil), nil
}

func parseCompleteParams(params []byte) (completeParams, *Error) {
	var p completeParams
	arg := decode.Lookup(params, "argument")
	if arg.Type() != decode.TypeObject {
		return p, errCompleteArg
	}
	name, value := decode.Lookup(arg.Raw(), "name"), decode.Lookup(arg.Raw(), "value")
	if name.Type() != decode.TypeString || value.Type() != decode.TypeString {
		return p, errCompleteArg
	}
	p.argument, p.value = unquote(name.Raw()), unquote(value.Raw())
	if c := decode.Lookup(params, "context"); c.Present() {
		if c.Type() != decode.TypeObject {
			return p, errCompleteContext
		}
		if a := decode.Lookup(c.Raw(), "arguments"); a.Present() {
			var ok bool
			if a.Type() != decode.TypeObject {
				return p, errCompleteContext
			}
			if p.context, ok = stringMap(a.Raw()); !ok {
				return p, errCompleteContext
			}
		}
	}
	return p, nil
}

// resolveRef finds the prompt or resource template ref names.
func resolveRef(cat *catalog, ref decode.Value, argument string) (completeTarget, *Error) {
	if ref.Type() != decode.TypeObject {
		return completeTarget{}, errCompleteRef
	}
	typ := decode.Lookup(ref.Raw(), "type")
	if typ.Type() != decode.TypeString {
		return completeTarget{}, errCompleteRef
	}
	switch unquote(typ.Raw()) {
	case "ref/prompt":
		n := decode.Lookup(ref.Raw(), "name")
		if n.Type() != decode.TypeString || len(n.Raw()) == 2 {
			return completeTarget{}, errCompleteRef
		}
		name := unquote(n.Raw())
		p := cat.prompts[name]
		if p == nil {
			return completeTarget{}, unknownPrompt(name)
		}
		return completeTarget{
			c: p.component(), refType: "ref/prompt", complete: p.complete, wrap: p.wrap,
			declared: p.declares(argument), unknown: unknownPrompt(name),
		}, nil
	case "ref/resource":
		u := decode.Lookup(ref.Raw(), "uri")
		if u.Type() != decode.TypeString || len(u.Raw()) == 2 {
			return completeTarget{}, errCompleteRef
		}
		uri := unquote(u.Raw())
		t := cat.templates[uri]
		if t == nil {
			return completeTarget{}, unknownTemplate(uri)
		}
		return completeTarget{
			c: t.component(), refType: "ref/resource", complete: t.complete, wrap: t.wrap,
			declared: slices.Contains(t.vars, argument), unknown: unknownTemplate(uri),
		}, nil
	}
	return completeTarget{}, errCompleteRef
}

// completeCall is the runner's input for completion/complete.
type completeCall struct {
	h CompletionHandler
	p completeParams
}

func invokeComplete(ctx context.Context, r *Request, c completeCall) (Completion, error) {
	return c.h(ctx, r, c.p.argument, c.p.value, c.p.context)
}
