package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"sync"
	"time"

	"github.com/fastmcp-go/fastmcp/decode"
)

// discoverCache holds the last server/discover result until its ttlMs passes.
type discoverCache struct {
	mu      sync.Mutex
	res     *DiscoverResult
	expires time.Time
}

// Discover returns what the server says about itself. On a modern connection the result is
// cached for its ttlMs; on a legacy one it is the initialize result.
func (c *Client) Discover(ctx context.Context) (*DiscoverResult, error) {
	c.disc.mu.Lock()
	if c.disc.res != nil && (!c.modern || time.Now().Before(c.disc.expires)) {
		r := c.disc.res
		c.disc.mu.Unlock()
		return r, nil
	}
	c.disc.mu.Unlock()
	if !c.modern {
		return nil, errors.New("client: no initialize result") // set by negotiate; unreachable
	}
	res, err := c.request(ctx, "server/discover", nil, nil, nil)
	if err != nil {
		return nil, err
	}
	return c.storeDiscover(res)
}

func (c *Client) storeDiscover(res []byte) (*DiscoverResult, error) {
	d := &DiscoverResult{Raw: res}
	if err := json.Unmarshal(res, d); err != nil {
		return nil, fmt.Errorf("%w: discover result: %v", ErrMalformed, err)
	}
	if c.modern {
		d.ServerInfo = json.RawMessage(decode.Lookup(decode.Lookup(res, "_meta").Raw(), "io.modelcontextprotocol/serverInfo").Raw())
	} else {
		d.ServerInfo = json.RawMessage(decode.Lookup(res, "serverInfo").Raw())
	}
	c.disc.mu.Lock()
	c.disc.res, c.disc.expires = d, time.Now().Add(time.Duration(d.TTLMs)*time.Millisecond)
	c.disc.mu.Unlock()
	return d, nil
}

// fetchPage fetches the page of method after cursor (a raw JSON string as the server sent
// it, echoed byte for byte; nil for the first page), decoding the page's key array into T.
// It returns the raw next cursor, nil after the last page.
func fetchPage[T any](ctx context.Context, c *Client, method, key string, cursor []byte) ([]T, []byte, error) {
	var members []byte
	if cursor != nil {
		members = append([]byte(`"cursor":`), cursor...)
	}
	res, err := c.request(ctx, method, members, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	var items []T
	if v := decode.Lookup(res, key); v.Present() {
		if err := json.Unmarshal(v.Raw(), &items); err != nil {
			return nil, nil, fmt.Errorf("%w: %s %s: %v", ErrMalformed, method, key, err)
		}
	}
	next := decode.Lookup(res, "nextCursor")
	if next.Type() != decode.TypeString {
		return items, nil, nil
	}
	return items, bytes.Clone(next.Raw()), nil
}

// pages follows method's pages, handing each page's items to fn until it returns false,
// within MaxPages and refusing a repeated cursor.
func pages[T any](ctx context.Context, c *Client, method, key string, fn func([]T) bool) error {
	seen := map[string]bool{}
	var cursor []byte
	for page := 0; ; page++ {
		if page >= c.cfg.MaxPages {
			return fmt.Errorf("%w: %s after %d pages", ErrTooManyPages, method, c.cfg.MaxPages)
		}
		items, next, err := fetchPage[T](ctx, c, method, key, cursor)
		if err != nil {
			return err
		}
		if !fn(items) || next == nil {
			return nil
		}
		if seen[string(next)] {
			return fmt.Errorf("%w: %s returned cursor %s twice", ErrRepeatedCursor, method, next)
		}
		seen[string(next)] = true
		cursor = next
	}
}

// listAll follows a list method's pages and returns the items each keeps (nil: all).
func listAll[T any](ctx context.Context, c *Client, method, key string, each func(T) bool) ([]T, error) {
	var out []T
	err := pages(ctx, c, method, key, func(items []T) bool {
		for _, it := range items {
			if each == nil || each(it) {
				out = append(out, it)
			}
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// listSeq iterates over a list method's items that each keeps (nil: all), fetching a page
// when the previous one is used up. An error is yielded once, with a zero item, and ends it.
func listSeq[T any](ctx context.Context, c *Client, method, key string, each func(T) bool) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		err := pages(ctx, c, method, key, func(items []T) bool {
			for _, it := range items {
				if (each == nil || each(it)) && !yield(it, nil) {
					return false
				}
			}
			return true
		})
		if err != nil {
			var zero T
			yield(zero, err)
		}
	}
}

// listPage fetches one page after cursor ("" for the first) and the next cursor ("" after
// the last).
func listPage[T any](ctx context.Context, c *Client, method, key, cursor string) ([]T, string, error) {
	var raw []byte
	if cursor != "" {
		raw = decode.AppendString(nil, cursor, false)
	}
	items, next, err := fetchPage[T](ctx, c, method, key, raw)
	if err != nil || next == nil {
		return items, "", err
	}
	return items, string(decode.Unquote(nil, next)), nil
}

// toolHeaderFilter keeps the tools whose x-mcp-header annotations are valid, logging the
// others (SEP-2243), and collects the annotations of those it keeps into hs.
func (c *Client) toolHeaderFilter(hs map[string][]headerArg) func(Tool) bool {
	return func(t Tool) bool {
		h, err := schemaHeaders(t.InputSchema)
		if err != nil {
			c.cfg.Logger.Warn("client: dropping a tool with invalid x-mcp-header annotations", "tool", t.Name, "err", err)
			return false
		}
		if len(h) > 0 {
			hs[t.Name] = h
		}
		return true
	}
}

// ListTools returns every tool, following all pages. A tool with invalid x-mcp-header
// annotations is dropped with a logged warning (SEP-2243); the others' annotations are
// remembered for CallTool's Mcp-Param-* headers.
func (c *Client) ListTools(ctx context.Context) ([]Tool, error) {
	hs := map[string][]headerArg{}
	tools, err := listAll(ctx, c, "tools/list", "tools", c.toolHeaderFilter(hs))
	if err != nil {
		return nil, err
	}
	c.tools.set(hs)
	return tools, nil
}

// ListResources returns every resource, following all pages.
func (c *Client) ListResources(ctx context.Context) ([]Resource, error) {
	return listAll[Resource](ctx, c, "resources/list", "resources", nil)
}

// ListResourceTemplates returns every resource template, following all pages.
func (c *Client) ListResourceTemplates(ctx context.Context) ([]ResourceTemplate, error) {
	return listAll[ResourceTemplate](ctx, c, "resources/templates/list", "resourceTemplates", nil)
}

// ListPrompts returns every prompt, following all pages.
func (c *Client) ListPrompts(ctx context.Context) ([]Prompt, error) {
	return listAll[Prompt](ctx, c, "prompts/list", "prompts", nil)
}

// CallTool calls the tool name with args: nil, a json.RawMessage or []byte holding a JSON
// object, or any value encoding/json marshals to one. A tool error (isError) is a result, not
// an error. On -32020 (a header the server wanted) the tools are re-listed and the call retried
// once. The request does not declare the tasks extension, so the server answers without a
// task; a tool it runs only as a task fails with an error matching [ErrTasksRequired]:
// [Client.CallToolTask] calls it.
func (c *Client) CallTool(ctx context.Context, name string, args any, opts ...CallOption) (*CallToolResult, error) {
	var o callOpts
	for _, opt := range opts {
		opt(&o)
	}
	res, err := c.callToolResult(ctx, name, args, &o)
	if err != nil {
		return nil, err
	}
	return toolResult(res), nil
}

// callToolResult sends tools/call with o and returns its result object, MRTR rounds done.
func (c *Client) callToolResult(ctx context.Context, name string, args any, o *callOpts) ([]byte, error) {
	var raw []byte
	switch a := args.(type) {
	case nil:
	case json.RawMessage:
		raw = a
	case []byte:
		raw = a
	default:
		b, err := json.Marshal(args)
		if err != nil {
			return nil, fmt.Errorf("client: arguments of %s: %w", name, err)
		}
		raw = b
	}
	members := make([]byte, 0, len(name)+len(raw)+24)
	members = append(members, `"name":`...)
	members = decode.AppendString(members, name, false)
	if len(raw) > 0 {
		members = append(members, `,"arguments":`...)
		members = append(members, raw...)
	}
	res, err := c.callTool(ctx, name, members, raw, o)
	if err != nil && c.modern && isCode(err, CodeHeaderMismatch) {
		if _, lerr := c.ListTools(ctx); lerr == nil {
			res, err = c.callTool(ctx, name, members, raw, o)
		}
	}
	return res, err
}

// isCode reports whether err is an *Error with code. Its own function, so that the *Error
// errors.As needs is allocated only on the error path that calls it.
func isCode(err error, code int64) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// toolResult wraps a tools/call result object.
func toolResult(res []byte) *CallToolResult {
	r := &CallToolResult{Raw: res}
	r.Content = json.RawMessage(decode.Lookup(res, "content").Raw())
	r.StructuredContent = json.RawMessage(decode.Lookup(res, "structuredContent").Raw())
	r.IsError = string(decode.Lookup(res, "isError").Raw()) == "true"
	return r
}

func (c *Client) callTool(ctx context.Context, name string, members, args []byte, o *callOpts) ([]byte, error) {
	hdr := headers{}
	if c.modern {
		hdr.name = headerValue(name)
		if hs := c.tools.get(name); len(hs) > 0 {
			hdr.params = paramHeaders(nil, hs, args)
		}
	}
	return c.request(ctx, "tools/call", members, &hdr, o)
}

// ReadResource reads uri and returns its result object (contents, and ttlMs and cacheScope
// on a modern server).
func (c *Client) ReadResource(ctx context.Context, uri string, opts ...CallOption) (json.RawMessage, error) {
	members := decode.AppendString([]byte(`"uri":`), uri, false)
	hdr := headers{}
	if c.modern {
		hdr.name = headerValue(uri)
	}
	return c.request(ctx, "resources/read", members, &hdr, applyOpts(opts))
}

// GetPrompt renders the prompt name with args and returns its result object.
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string, opts ...CallOption) (json.RawMessage, error) {
	members := decode.AppendString([]byte(`"name":`), name, false)
	if len(args) > 0 {
		b, err := json.Marshal(args)
		if err != nil {
			return nil, err
		}
		members = append(append(members, `,"arguments":`...), b...)
	}
	hdr := headers{}
	if c.modern {
		hdr.name = headerValue(name)
	}
	return c.request(ctx, "prompts/get", members, &hdr, applyOpts(opts))
}

// CompletionRef names what completion/complete completes: a prompt (Type "ref/prompt", Name)
// or a resource template (Type "ref/resource", URI).
type CompletionRef struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// Completion is a completion/complete result.
type Completion struct {
	Values  []string `json:"values"`
	Total   int      `json:"total,omitempty"`
	HasMore bool     `json:"hasMore,omitempty"`
}

// Complete asks for completions of argument arg, partially typed as value.
func (c *Client) Complete(ctx context.Context, ref CompletionRef, arg, value string) (*Completion, error) {
	params, err := json.Marshal(struct {
		Ref      CompletionRef `json:"ref"`
		Argument struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"argument"`
	}{Ref: ref, Argument: struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}{arg, value}})
	if err != nil {
		return nil, err
	}
	res, err := c.request(ctx, "completion/complete", params[1:len(params)-1], nil, nil)
	if err != nil {
		return nil, err
	}
	var out struct {
		Completion Completion `json:"completion"`
	}
	if err := json.Unmarshal(res, &out); err != nil {
		return nil, fmt.Errorf("%w: completion: %v", ErrMalformed, err)
	}
	return &out.Completion, nil
}

// Ping checks the connection. Ping exists only in the initialize era: on a modern connection
// the request is still sent, and a 2026-07-28 server answers it with -32601 (an *Error).
func (c *Client) Ping(ctx context.Context) error {
	_, err := c.request(ctx, "ping", nil, nil, nil)
	return err
}

func applyOpts(opts []CallOption) *callOpts {
	var o callOpts
	for _, f := range opts {
		f(&o)
	}
	return &o
}
