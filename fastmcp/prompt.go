package fastmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/fastmcp-go/fastmcp/decode"
)

// Prompt describes a prompt or prompt template. Register it with [Server.AddPrompt].
type Prompt struct {
	// Name is the prompt's identity in prompts/get: a non-empty UTF-8 string.
	Name        string
	Title       string
	Description string
	// Arguments declares the arguments, in the order they are listed. prompts/get refuses a
	// request that lacks a Required one before the handler runs.
	Arguments []PromptArgument
	Icons     []Icon
	// Meta is an optional _meta object listed with the prompt.
	Meta json.RawMessage
	// Wrap lists component wrappers; the first runs outermost, after authorization and
	// argument validation. They wrap Complete too.
	Wrap []Wrapper
	// Complete, if set, completes the prompt's declared arguments (completion/complete with a
	// ref/prompt reference); registering it advertises the completions capability.
	Complete CompletionHandler
}

// PromptArgument declares one argument of a prompt. Argument values are strings.
type PromptArgument struct {
	// Name is required and unique within the prompt.
	Name        string
	Title       string
	Description string
	Required    bool
}

// Role is who a prompt message (or an annotated resource) is for.
type Role string

// The roles of MCP.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// PromptMessage is one message of a prompt result.
type PromptMessage struct {
	Role    Role
	Content Content
}

// UserMessage returns a message with the user role.
func UserMessage(c Content) PromptMessage { return PromptMessage{Role: RoleUser, Content: c} }

// AssistantMessage returns a message with the assistant role.
func AssistantMessage(c Content) PromptMessage { return PromptMessage{Role: RoleAssistant, Content: c} }

// PromptResult is what a prompt handler returns.
type PromptResult struct {
	// Description describes this rendering of the prompt. If empty, the Prompt's Description
	// is sent, when it has one.
	Description string
	Messages    []PromptMessage
	// Meta is an optional _meta object; its members join the server's.
	Meta json.RawMessage
}

// PromptHandler renders a prompt. args holds the arguments the client sent (every Required one
// is there). It returns a result; an *Error to answer with a JSON-RPC error; an
// *InputRequired to ask the client for input (multi round-trip); or any other error, which
// the client sees as a generic -32603 "Prompt failed" (the error is logged, never sent).
type PromptHandler func(ctx context.Context, r *Request, args map[string]string) (PromptResult, error)

// promptEntry is a registered prompt with its list JSON precomputed.
type promptEntry struct {
	name        string
	description string
	args        []PromptArgument
	listed      []byte
	// listedNoIcons is listed without its icons, for 2025-06-18; nil when it has none.
	listedNoIcons []byte
	wrap          []Wrapper
	get           PromptHandler
	complete      CompletionHandler
	labels        labelSets // an Observer's labels of the prompt's gets
}

func (e *promptEntry) listedJSON(d Dialect) []byte { return listedIn(d, e.listed, e.listedNoIcons) }
func (e *promptEntry) component() Component {
	return Component{Kind: "prompt", Name: e.name}
}

// declares reports whether the prompt declares the argument name.
func (e *promptEntry) declares(name string) bool {
	for _, a := range e.args {
		if a.Name == name {
			return true
		}
	}
	return false
}

// AddPrompt registers a prompt and publishes prompts/list_changed. Registration mistakes
// panic, as net/http's ServeMux does: an empty or duplicate name, a nil handler, an argument
// without a name or declared twice, a _meta that is not a JSON object, an invalid wrapper.
func (s *Server) AddPrompt(p Prompt, h PromptHandler) {
	e, err := newPromptEntry(p, h)
	if err != nil {
		panic("fastmcp: prompt " + p.Name + ": " + err.Error())
	}
	kind := kindPrompt
	if e.complete != nil {
		kind |= kindCompletion
	}
	s.update(kind, func(c *catalog) {
		if _, dup := c.prompts[e.name]; dup {
			panic("fastmcp: prompt " + p.Name + " is already registered")
		}
		c.prompts[e.name] = e
	})
}

// RemovePrompts unregisters the named prompts (unknown names are ignored) and publishes
// prompts/list_changed when one was registered.
func (s *Server) RemovePrompts(names ...string) {
	if !anyKey(s.catalog.Load().prompts, names) {
		return
	}
	s.update(kindPrompt, func(c *catalog) {
		for _, n := range names {
			delete(c.prompts, n)
		}
	})
}

func newPromptEntry(p Prompt, h PromptHandler) (*promptEntry, error) {
	if h == nil {
		return nil, errors.New("nil handler")
	}
	if p.Name == "" || !utf8.ValidString(p.Name) {
		return nil, errors.New("the name must be a non-empty UTF-8 string")
	}
	for _, w := range p.Wrap {
		if err := w.validate(); err != nil {
			return nil, err
		}
	}
	b := append([]byte(nil), `{"name":`...)
	b = decode.AppendString(b, p.Name, false)
	b = appendOptString(b, "title", p.Title)
	b = appendOptString(b, "description", p.Description)
	b = append(b, `,"arguments":[`...)
	seen := make(map[string]bool, len(p.Arguments))
	for i, a := range p.Arguments {
		switch {
		case a.Name == "" || !utf8.ValidString(a.Name):
			return nil, fmt.Errorf("argument %d: the name must be a non-empty UTF-8 string", i)
		case seen[a.Name]:
			return nil, fmt.Errorf("argument %q is declared twice", a.Name)
		}
		seen[a.Name] = true
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = decode.AppendString(b, a.Name, false)
		b = appendOptString(b, "title", a.Title)
		b = appendOptString(b, "description", a.Description)
		if a.Required {
			b = append(b, `,"required":true`...)
		}
		b = append(b, '}')
	}
	b = append(b, ']')
	listed, noIcons, err := appendIconsAndMeta(b, p.Icons, p.Meta)
	if err != nil {
		return nil, err
	}
	return &promptEntry{
		name: p.Name, description: p.Description, args: append([]PromptArgument(nil), p.Arguments...),
		listed: listed, listedNoIcons: noIcons, wrap: p.Wrap, get: h, complete: p.Complete,
	}, nil
}

// appendIconsAndMeta ends a component's listed object b with its icons and _meta, and
// returns it, and when there are icons the same object without them (for 2025-06-18).
func appendIconsAndMeta(b []byte, icons []Icon, meta []byte) (listed, noIcons []byte, err error) {
	tail, err := appendMetaMember(nil, meta)
	if err != nil {
		return nil, nil, err
	}
	if len(icons) > 0 {
		noIcons = append(append(append([]byte(nil), b...), tail...), '}')
	}
	if b, err = appendOptJSON(b, "icons", icons, len(icons) > 0); err != nil {
		return nil, nil, err
	}
	return append(append(b, tail...), '}'), noIcons, nil
}

func (s *Server) listPrompts(ctx context.Context, r *Request, dst []byte) ([]byte, error) {
	r.cat.sorted()
	return listPage(ctx, s, r, dst, "prompts", r.cat.promptList, s.cfg.PromptsCache)
}

var (
	errPromptName = &Error{Code: CodeInvalidParams, Message: "Invalid params: name must be a non-empty string"}
	errPromptArgs = &Error{Code: CodeInvalidParams, Message: "Invalid params: arguments must be an object of strings"}
	errPromptFail = &Error{Code: CodeInternalError, Message: "Prompt failed"}
)

func unknownPrompt(name string) *Error {
	return &Error{Code: CodeInvalidParams, Message: "Unknown prompt: " + name}
}

// getPrompt serves prompts/get: lookup, authorization, the multi round-trip state, argument
// validation, wrappers and handler, and the result's shape.
func (s *Server) getPrompt(ctx context.Context, r *Request, dst []byte) ([]byte, error) {
	m := r.msg
	n := m.Name()
	if n.Type() != decode.TypeString || len(n.Text()) == 0 {
		return nil, errPromptName
	}
	name := n.String()
	a := m.Arguments()
	raw := a.Raw()
	switch a.Type() {
	case decode.TypeAbsent:
		raw = emptyArguments
	case decode.TypeObject:
	default:
		return nil, errPromptArgs
	}
	args, ok := stringMap(raw)
	if !ok {
		return nil, errPromptArgs
	}
	p := r.cat.prompts[name]
	if p == nil {
		return nil, unknownPrompt(name)
	}
	if err := s.authorizeInvocation(ctx, r.method, p.component(), func() *Error { return unknownPrompt(name) }); err != nil {
		return nil, err
	}
	if err := s.openState(ctx, r, p.name, raw); err != nil {
		return nil, err
	}
	if err := missingArguments(p, args); err != nil {
		return nil, err
	}
	res, err := run(ctx, r, &opPrompt, &invocation{p.component(), p.name, p.wrap}, p.get, args)
	if err != nil {
		var ir *InputRequired
		if errors.As(err, &ir) {
			return s.appendInputRequired(ctx, dst, r, p.name, raw, ir)
		}
		return nil, s.handlerError(ctx, err, errPromptFail, "fastmcp: prompt failed", "prompt", p.name)
	}
	return s.appendPromptResult(dst, r, p, res)
}

// stringMap decodes a JSON object whose values are all strings.
func stringMap(obj []byte) (map[string]string, bool) {
	out := map[string]string{}
	ok := true
	decode.Members(obj, func(key, val []byte, t decode.Type) bool {
		if t != decode.TypeString {
			ok = false
			return false
		}
		out[unescapeKey(key)] = unquote(val)
		return true
	})
	return out, ok
}

// unescapeKey returns the content of a raw object key (escapes kept, as decode.Members gives
// it) as a string.
func unescapeKey(key []byte) string {
	for _, c := range key {
		if c == '\\' {
			lit := make([]byte, 0, len(key)+2)
			lit = append(append(append(lit, '"'), key...), '"')
			return string(decode.Unquote(nil, lit))
		}
	}
	return string(key)
}

// unquote returns the content of a JSON string literal from a decoded message.
func unquote(lit []byte) string {
	body := lit[1 : len(lit)-1]
	for _, c := range body {
		if c == '\\' {
			return string(decode.Unquote(nil, lit))
		}
	}
	return string(body)
}

// missingArguments is -32602 with data {"missing":[...]} when required arguments are absent,
// in declaration order.
func missingArguments(p *promptEntry, args map[string]string) *Error {
	var data []byte
	for _, a := range p.args {
		if _, ok := args[a.Name]; !a.Required || ok {
			continue
		}
		if data == nil {
			data = append(data, `{"missing":[`...)
		} else {
			data = append(data, ',')
		}
		data = decode.AppendString(data, a.Name, false)
	}
	if data == nil {
		return nil
	}
	return &Error{Code: CodeInvalidParams, Message: "Missing required prompt arguments", Data: append(data, ']', '}')}
}

// appendPromptResult writes a complete prompts/get result, checking what the handler
// returned: roles, and _meta objects.
func (s *Server) appendPromptResult(dst []byte, r *Request, p *promptEntry, res PromptResult) ([]byte, error) {
	invalid := func(why string, err error) ([]byte, error) {
		s.cfg.Logger.Error("fastmcp: prompt returned an invalid result", "prompt", p.name, "why", why, "err", err)
		return nil, errInvalidResult
	}
	meta, err := metaObject(res.Meta)
	if err != nil {
		return invalid("result _meta", err)
	}
	desc := res.Description
	if desc == "" {
		desc = p.description
	}
	dst = r.beginResult(dst)
	dst = appendOptString(dst, "description", desc)
	dst = append(dst, `,"messages":[`...)
	for i := range res.Messages {
		msg := &res.Messages[i]
		if msg.Role != RoleUser && msg.Role != RoleAssistant {
			return invalid("role", fmt.Errorf("message %d: role %q", i, msg.Role))
		}
		c := msg.Content // a copy: a compacted _meta must not touch the handler's value
		if err := cleanContent(&c); err != nil {
			return invalid("content", fmt.Errorf("message %d: %w", i, err))
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"role":"`...)
		dst = append(dst, msg.Role...)
		dst = append(dst, `","content":`...)
		dst = appendContent(dst, &c)
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	return r.endResult(dst, meta), nil
}

// cleanContent checks the _meta objects of a content block and compacts them, so a result is
// one line of valid JSON whatever the handler put there.
func cleanContent(c *Content) error {
	m, err := metaObject(c.Meta)
	if err != nil {
		return err
	}
	c.Meta = m
	if c.resource != nil && c.resource.Meta != nil {
		m, err := metaObject(c.resource.Meta)
		if err != nil {
			return err
		}
		rc := *c.resource
		rc.Meta = m
		c.resource = &rc
	}
	return nil
}
