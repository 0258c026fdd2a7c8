package fastmcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/bytedance/sonic"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/internal/jsonschema"
)

// Tool describes a tool. For the typed forms ([AddTool], [AddStructuredTool]) the input
// schema (and output schema) are derived from the Go types when left nil; for
// [Server.AddRawTool] InputSchema is required.
type Tool struct {
	// Name is 1 to 128 characters from [A-Za-z0-9_.-].
	Name        string
	Title       string
	Description string
	// InputSchema is a JSON Schema 2020-12 object schema for the arguments. Properties may
	// carry "x-mcp-header" annotations, mirrored as Mcp-Param-* headers over Streamable HTTP.
	InputSchema json.RawMessage
	// OutputSchema, if set, is a JSON Schema for structuredContent, which results must then
	// carry and match.
	OutputSchema json.RawMessage
	Annotations  *ToolAnnotations
	Icons        []Icon
	// Meta is an optional _meta object listed with the tool.
	Meta json.RawMessage
	// Wrap lists component wrappers (timeouts, concurrency and rate limits); the first runs
	// outermost, after authorization and argument validation.
	Wrap []Wrapper
}

// ToolAnnotations are hints about a tool's behaviour, for clients; they are not enforced.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// ToolResult is what a tool returns.
type ToolResult struct {
	// Text is a shorthand for one text content block, sent before Content.
	Text    string
	Content []Content
	// Structured is sent as structuredContent: any JSON-encodable value (a json.RawMessage is
	// sent as it is). It must match the tool's OutputSchema when there is one.
	Structured any
	// IsError marks a tool failure the model should see (not a protocol error).
	IsError bool
	// Meta is an optional _meta object; its members join the server's.
	Meta json.RawMessage
}

// ErrorResult returns an isError result with one text block.
func ErrorResult(message string) ToolResult { return ToolResult{Text: message, IsError: true} }

// ToolHandler serves a tool with typed arguments. It returns a result; an *Error to answer
// with a JSON-RPC error; an *InputRequired to ask the client for input (multi round-trip); or
// any other error, which becomes an isError result with the error's text.
type ToolHandler[In any] func(ctx context.Context, r *Request, in In) (ToolResult, error)

// RawToolHandler serves a tool with raw JSON arguments (an object, "{}" when the client sent
// none). The arguments are borrowed: copy them to keep them after returning.
type RawToolHandler func(ctx context.Context, r *Request, arguments json.RawMessage) (ToolResult, error)

// toolEntry is a registered tool with everything precomputed for serving it.
type toolEntry struct {
	name   string
	listed []byte // the tool's object in tools/list
	// listedNoIcons is listed without its icons, for 2025-06-18; nil when it has none.
	listedNoIcons []byte
	// legacy reports whether the initialize-era revisions can express the tool's schemas
	// (see legacySchema); they neither list nor call a tool they cannot.
	legacy  bool
	input   *jsonschema.Schema
	output  *jsonschema.Schema
	headers []jsonschema.HeaderParam
	call    RawToolHandler
	// checked, when not nil, is call for arguments not yet validated: it validates them as
	// it decodes them, answering invalid ones as callTool would. Only for tools without
	// wrappers, which must not run for invalid arguments.
	checked RawToolHandler
	inv     invocation // for the runner: built once, as tools/call is the hot path
	labels  labelSets  // an Observer's labels of the tool's calls
}

// handler is what tools/call runs: checked when the tool has it.
func (t *toolEntry) handler() RawToolHandler {
	if t.checked != nil {
		return t.checked
	}
	return t.call
}

// AddTool registers a tool whose arguments decode into In (with sonic; a flat struct of
// strings, bools and numbers by a plan compiled here, to the same result). Without an
// explicit InputSchema it is derived from In: field names from json tags, descriptions from
// description tags, x-mcp-header from mcpheader tags. Arguments are validated against the
// schema before h runs; a failure is an isError result. Registration mistakes panic, as
// net/http's ServeMux does: a duplicate or invalid name, a nil handler, a malformed schema,
// a bad x-mcp-header annotation.
func AddTool[In any](s *Server, t Tool, h ToolHandler[In]) {
	if h == nil {
		panic("fastmcp: AddTool " + t.Name + ": nil handler")
	}
	if t.InputSchema == nil {
		schema, err := jsonschema.Derive[In]()
		if err != nil {
			panic(fmt.Sprintf("fastmcp: AddTool %s: %v", t.Name, err))
		}
		t.InputSchema = schema
	}
	call, checked := typedHandlers(h)
	s.addTool(t, call, checked)
}

// AddStructuredTool registers a tool with typed arguments and a typed structured result: the
// output schema is derived from Out when OutputSchema is nil, and each result is sent as
// structuredContent with its JSON text as a text block.
func AddStructuredTool[In, Out any](s *Server, t Tool, h func(ctx context.Context, r *Request, in In) (Out, error)) {
	if h == nil {
		panic("fastmcp: AddStructuredTool " + t.Name + ": nil handler")
	}
	if t.OutputSchema == nil {
		schema, err := jsonschema.Derive[Out]()
		if err != nil {
			panic(fmt.Sprintf("fastmcp: AddStructuredTool %s: output: %v", t.Name, err))
		}
		t.OutputSchema = schema
	}
	AddTool(s, t, func(ctx context.Context, r *Request, in In) (ToolResult, error) {
		out, err := h(ctx, r, in)
		if err != nil {
			return ToolResult{}, err
		}
		enc, err := sonic.Marshal(out)
		if err != nil {
			return ToolResult{}, errInvalidResult
		}
		return ToolResult{Text: string(enc), Structured: json.RawMessage(enc)}, nil
	})
}

// AddRawTool registers a tool with an explicit input schema and raw JSON arguments.
func (s *Server) AddRawTool(t Tool, h RawToolHandler) {
	if h == nil {
		panic("fastmcp: AddRawTool " + t.Name + ": nil handler")
	}
	if t.InputSchema == nil {
		panic("fastmcp: AddRawTool " + t.Name + ": InputSchema is required")
	}
	s.addTool(t, h, nil)
}

// RemoveTools unregisters the named tools (unknown names are ignored) and publishes
// tools/list_changed.
func (s *Server) RemoveTools(names ...string) {
	s.update(kindTool, func(c *catalog) {
		for _, n := range names {
			delete(c.tools, n)
		}
	})
}

func (s *Server) addTool(t Tool, call RawToolHandler, checked func(*jsonschema.Schema) RawToolHandler) {
	e, err := newToolEntry(t, call, checked)
	if err != nil {
		panic("fastmcp: tool " + t.Name + ": " + err.Error())
	}
	s.update(kindTool, func(c *catalog) {
		if _, dup := c.tools[e.name]; dup {
			panic("fastmcp: tool " + t.Name + " is already registered")
		}
		c.tools[e.name] = e
	})
}

// newToolEntry builds a tool's entry. checked, if not nil, may return a handler that validates
// the arguments itself (see toolEntry.checked).
func newToolEntry(t Tool, call RawToolHandler, checked func(*jsonschema.Schema) RawToolHandler) (*toolEntry, error) {
	if !validToolName(t.Name) {
		return nil, fmt.Errorf("invalid name %q: want 1 to 128 characters from [A-Za-z0-9_.-]", t.Name)
	}
	e := &toolEntry{name: t.Name, call: call}
	e.inv = invocation{e.component(), e.name, t.Wrap}
	input, err := compactJSON(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	if decode.Lookup(input, "type").String() != "object" {
		return nil, fmt.Errorf(`input schema: the root must have "type":"object"`)
	}
	if e.input, err = jsonschema.Compile(input); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	if checked != nil && len(t.Wrap) == 0 {
		e.checked = checked(e.input)
	}
	if e.headers, err = jsonschema.HeaderParams(input); err != nil {
		return nil, fmt.Errorf("x-mcp-header: %w", err)
	}
	var output []byte
	if t.OutputSchema != nil {
		if output, err = compactJSON(t.OutputSchema); err != nil {
			return nil, fmt.Errorf("output schema: %w", err)
		}
		if e.output, err = jsonschema.Compile(output); err != nil {
			return nil, fmt.Errorf("output schema: %w", err)
		}
	}
	for _, w := range t.Wrap {
		if err := w.validate(); err != nil {
			return nil, err
		}
	}
	if e.listed, err = toolListed(t, input, output, true); err != nil {
		return nil, err
	}
	if len(t.Icons) > 0 {
		e.listedNoIcons, _ = toolListed(t, input, output, false)
	}
	e.legacy = legacySchema(input) && (output == nil || legacySchema(output))
	return e, nil
}

// toolListed returns the tool's object in tools/list, with its icons or without them (for
// 2025-06-18, which has none).
func toolListed(t Tool, input, output []byte, icons bool) ([]byte, error) {
	b := append([]byte(nil), `{"name":`...)
	b = decode.AppendString(b, t.Name, false)
	b = appendOptString(b, "title", t.Title)
	b = appendOptString(b, "description", t.Description)
	b = append(b, `,"inputSchema":`...)
	b = append(b, input...)
	if output != nil {
		b = append(b, `,"outputSchema":`...)
		b = append(b, output...)
	}
	var err error
	if b, err = appendOptJSON(b, "annotations", t.Annotations, t.Annotations != nil); err != nil {
		return nil, err
	}
	if b, err = appendOptJSON(b, "icons", t.Icons, icons && len(t.Icons) > 0); err != nil {
		return nil, err
	}
	if t.Meta != nil {
		meta, err := compactJSON(t.Meta)
		if err != nil {
			return nil, fmt.Errorf("meta: %w", err)
		}
		b = append(append(b, `,"_meta":`...), meta...)
	}
	return append(b, '}'), nil
}

// HeaderParams returns the x-mcp-header annotations of the named tool's input schema, for
// the Streamable HTTP transport's Mcp-Param-* checks. ok is false for an unknown tool.
func (s *Server) headerParams(tool string) (params []jsonschema.HeaderParam, ok bool) {
	e := s.catalog.Load().tools[tool]
	if e == nil {
		return nil, false
	}
	return e.headers, true
}

func validToolName(n string) bool {
	if len(n) == 0 || len(n) > 128 {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !isAlnum(c) && c != '_' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

func compactJSON(raw []byte) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func appendOptString(dst []byte, key, v string) []byte {
	if v == "" {
		return dst
	}
	dst = append(dst, ',', '"')
	dst = append(dst, key...)
	dst = append(dst, '"', ':')
	return decode.AppendString(dst, v, false)
}

func appendOptJSON(dst []byte, key string, v any, present bool) ([]byte, error) {
	if !present {
		return dst, nil
	}
	enc, err := json.Marshal(v)
	if err != nil {
		return dst, fmt.Errorf("%s: %w", key, err)
	}
	dst = append(dst, ',', '"')
	dst = append(dst, key...)
	dst = append(dst, '"', ':')
	return append(dst, enc...), nil
}
