package gateway

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// The handlers below forward one request to the backend under its own name (or URI), with
// the caller's arguments unchanged, and bring back its result, its JSON-RPC error (code,
// message and data kept) or, when the backend is down or the connection broke, the
// unavailable error. The caller's context cancels the backend's request; the backend's
// progress and log messages reach the caller when it asked for them (relay.go). Nothing of
// the caller's request but its arguments reaches the backend: not its headers, not its
// credentials.

func (b *backend) callTool(own string) fastmcp.RawToolHandler {
	return func(ctx context.Context, r *fastmcp.Request, args json.RawMessage) (fastmcp.ToolResult, error) {
		c := b.current()
		if c == nil {
			return fastmcp.ToolResult{}, b.refuseDown()
		}
		args = append([]byte(nil), args...)
		rl := newRelay(ctx, r)
		defer rl.detach()
		opts := b.callOptions(ctx, rl, r)
		if !c.Modern() {
			v, err := b.legacyCall(ctx, r, rl, func(ctx context.Context) (any, error) {
				return guard(b.limits, ctx, func(ctx context.Context) (any, error) { return c.CallTool(ctx, own, json.RawMessage(args), opts...) })
			})
			if err != nil {
				return fastmcp.ToolResult{}, b.forwardError(ctx, err)
			}
			return b.toolResult(v.(*client.CallToolResult))
		}
		round, err := inputRound(r)
		if err != nil {
			return fastmcp.ToolResult{}, err
		}
		res, err := guard(b.limits, ctx, func(ctx context.Context) (*client.CallToolResult, error) {
			return c.CallTool(ctx, own, json.RawMessage(args), append(opts, client.WithInputRound(round))...)
		})
		if err != nil {
			return fastmcp.ToolResult{}, b.forwardError(ctx, err)
		}
		if ir, err := relayedInput(res.Raw); ir != nil || err != nil {
			return fastmcp.ToolResult{}, b.inputOrMalformed(ir, err)
		}
		return b.toolResult(res)
	}
}

func (b *backend) getPrompt(own string) fastmcp.PromptHandler {
	return func(ctx context.Context, r *fastmcp.Request, args map[string]string) (fastmcp.PromptResult, error) {
		c := b.current()
		if c == nil {
			return fastmcp.PromptResult{}, b.refuseDown()
		}
		raw, err := b.request(ctx, r, c, func(ctx context.Context, opts ...client.CallOption) (json.RawMessage, error) {
			return c.GetPrompt(ctx, own, args, opts...)
		})
		if err != nil {
			return fastmcp.PromptResult{}, err
		}
		var res struct {
			Description string `json:"description"`
			Messages    []struct {
				Role    fastmcp.Role    `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
			Meta json.RawMessage `json:"_meta"`
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			return fastmcp.PromptResult{}, b.malformed(err)
		}
		out := fastmcp.PromptResult{Description: res.Description, Meta: ownMeta(res.Meta)}
		for _, m := range res.Messages {
			if !isObject(m.Content) {
				return fastmcp.PromptResult{}, b.malformed(errors.New("a message's content is not an object"))
			}
			out.Messages = append(out.Messages, fastmcp.PromptMessage{Role: m.Role, Content: fastmcp.RawContent(m.Content)})
		}
		return out, nil
	}
}

func (b *backend) readResource(own string) fastmcp.ResourceHandler {
	return func(ctx context.Context, r *fastmcp.Request, uri string) ([]fastmcp.ResourceContents, error) {
		return b.read(ctx, r, own)
	}
}

// readTemplate reads the backend's URI behind a namespaced one the template matched.
func (b *backend) readTemplate() fastmcp.TemplateHandler {
	return func(ctx context.Context, r *fastmcp.Request, uri string, vars map[string]string) ([]fastmcp.ResourceContents, error) {
		own := uri
		if b.names.schemePrefix != "" {
			own = uri[len(b.names.schemePrefix):] // the template starts with the prefix, so uri does
		}
		return b.read(ctx, r, own)
	}
}

func (b *backend) read(ctx context.Context, r *fastmcp.Request, own string) ([]fastmcp.ResourceContents, error) {
	c := b.current()
	if c == nil {
		return nil, b.refuseDown()
	}
	raw, err := b.request(ctx, r, c, func(ctx context.Context, opts ...client.CallOption) (json.RawMessage, error) {
		return c.ReadResource(ctx, own, opts...)
	})
	if err != nil {
		return nil, err
	}
	var res struct {
		Contents []struct {
			URI      string          `json:"uri"`
			MimeType string          `json:"mimeType"`
			Text     string          `json:"text"`
			Blob     *string         `json:"blob"`
			Meta     json.RawMessage `json:"_meta"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, b.malformed(err)
	}
	out := make([]fastmcp.ResourceContents, 0, len(res.Contents))
	for _, rc := range res.Contents {
		fc := fastmcp.ResourceContents{URI: b.names.URI(rc.URI), MimeType: rc.MimeType, Text: rc.Text, Meta: rc.Meta}
		if rc.Blob != nil {
			if fc.Blob, err = base64.StdEncoding.DecodeString(*rc.Blob); err != nil {
				return nil, b.malformed(err)
			}
		}
		out = append(out, fc)
	}
	return out, nil
}

func (b *backend) complete(ref client.CompletionRef) fastmcp.CompletionHandler {
	return func(ctx context.Context, r *fastmcp.Request, argument, value string, _ map[string]string) (fastmcp.Completion, error) {
		c := b.current()
		if c == nil {
			return fastmcp.Completion{}, b.refuseDown()
		}
		got, err := guard(b.limits, ctx, func(ctx context.Context) (*client.Completion, error) { return c.Complete(ctx, ref, argument, value) })
		if err != nil {
			return fastmcp.Completion{}, b.forwardError(ctx, err)
		}
		return fastmcp.Completion{Values: got.Values, Total: got.Total, HasMore: got.HasMore}, nil
	}
}

// forwardError maps a failed backend call to the caller's error: the backend's JSON-RPC
// error as it was; the caller's own cancellation as it is; an answer the client refused
// (malformed, past MaxResponseBytes) as the malformed or too-large error, the backend left
// as it is; a call that passed the client's RequestTimeout as the timeout error, and
// anything else (the transport failed, the process exited) as the unavailable error, after
// both of which the backend is checked at once (a backend that hangs entirely fails its
// health check within ConnectTimeout and is reconnected).
func (b *backend) forwardError(ctx context.Context, err error) error {
	var (
		rpc   *client.Error
		own   *fastmcp.Error
		input *fastmcp.InputRequired
	)
	if errors.As(err, &input) || errors.As(err, &own) {
		return err // the Gateway's own answer (parked.go)
	}
	if errors.As(err, &rpc) {
		return fastmcp.NewError(fastmcp.Code(rpc.Code), rpc.Message, rpc.Data)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	b.log.Warn("gateway: backend call failed", "err", err)
	var refused *refusedError
	switch {
	case errors.As(err, &refused):
		// A 403 concerns this request only; a 401 refuses the credential itself, and the
		// reconnection checks it (the backend is down, in /readyz, until it is accepted).
		if refused.status == 401 {
			b.failed()
		}
		return refusedAuthorization(b.spec.Name)
	case errors.Is(err, client.ErrResponseTooLarge) || errors.Is(err, client.ErrLineTooLong):
		return answerTooLarge(b.spec.Name)
	case errors.Is(err, client.ErrMalformed):
		return malformedAnswer(b.spec.Name)
	}
	b.failed()
	if errors.Is(err, context.DeadlineExceeded) {
		return answerTimedOut(b.spec.Name)
	}
	return unavailable(b.spec.Name)
}

// request sends a prompts/get or resources/read (send) to the backend and returns its
// result, the backend's input requests relayed to the caller: a 2026-07-28 backend's
// input_required as it is (input.go), an initialize-era one's requests from a parked call
// (parked.go); its progress and log messages are forwarded as a tool call's. Its errors
// are the caller's.
func (b *backend) request(ctx context.Context, r *fastmcp.Request, c *client.Client, send func(context.Context, ...client.CallOption) (json.RawMessage, error)) (json.RawMessage, error) {
	rl := newRelay(ctx, r)
	defer rl.detach()
	opts := b.callOptions(ctx, rl, r)
	if !c.Modern() {
		v, err := b.legacyCall(ctx, r, rl, func(ctx context.Context) (any, error) {
			return guard(b.limits, ctx, func(ctx context.Context) (any, error) { return send(ctx, opts...) })
		})
		if err != nil {
			return nil, b.forwardError(ctx, err)
		}
		return v.(json.RawMessage), nil
	}
	round, err := inputRound(r)
	if err != nil {
		return nil, err
	}
	raw, err := guard(b.limits, ctx, func(ctx context.Context) (json.RawMessage, error) {
		return send(ctx, append(opts, client.WithInputRound(round))...)
	})
	if err != nil {
		return nil, b.forwardError(ctx, err)
	}
	if ir, err := relayedInput(raw); ir != nil || err != nil {
		return nil, b.inputOrMalformed(ir, err)
	}
	return raw, nil
}

// inputOrMalformed is the handler's error for a backend's input_required result: the
// relayed InputRequired, or the malformed error when it could not be read.
func (b *backend) inputOrMalformed(ir *fastmcp.InputRequired, err error) error {
	if err != nil {
		return b.malformed(err)
	}
	return ir
}

// malformed logs why a backend's answer cannot be read and returns the caller's error.
func (b *backend) malformed(err error) error {
	b.log.Warn("gateway: malformed answer", "err", err)
	return malformedAnswer(b.spec.Name)
}

// toolResult carries a backend's tools/call result over unchanged: its content blocks as
// they were sent, its structuredContent, isError and _meta.
func (b *backend) toolResult(res *client.CallToolResult) (fastmcp.ToolResult, error) {
	// The client decoded the whole response: its parts are valid JSON, read here with the
	// decoder's views (no encoding/json on the forwarding path).
	out := fastmcp.ToolResult{IsError: res.IsError}
	switch firstType(res.Content) {
	case decode.TypeAbsent, decode.TypeNull:
	case decode.TypeArray:
		ok := true
		decode.Elements(res.Content, func(blk []byte, t decode.Type) bool {
			if ok = t == decode.TypeObject; ok {
				out.Content = append(out.Content, fastmcp.RawContent(blk))
			}
			return ok
		})
		if !ok {
			return fastmcp.ToolResult{}, b.malformed(errors.New("content: a block is not an object"))
		}
	default:
		return fastmcp.ToolResult{}, b.malformed(errors.New("content: not an array"))
	}
	if out.Content == nil {
		out.Content = []fastmcp.Content{}
	}
	if len(res.StructuredContent) > 0 && string(res.StructuredContent) != "null" {
		out.Structured = res.StructuredContent
	}
	if m := decode.Lookup(res.Raw, "_meta"); m.Type() == decode.TypeObject {
		out.Meta = ownMeta(m.Raw())
	}
	return out, nil
}

// serverInfoKey is the _meta member a 2026-07-28 server names itself with; the Gateway
// names itself, so a backend's is dropped (the result would carry the member twice).
const serverInfoKey = "io.modelcontextprotocol/serverInfo"

// ownMeta is a backend result's _meta (a decoded object) without the members the Gateway
// sets itself, in a slice of its own; nil when nothing is left.
func ownMeta(raw []byte) json.RawMessage {
	out := editObject(raw, func(key, v []byte) []byte {
		if decode.KeyEquals(key, serverInfoKey) {
			return nil
		}
		return v
	})
	if len(out) == len("{}") {
		return nil
	}
	return out
}

// firstType is the JSON type of a raw value by its first byte (decoded elsewhere).
func firstType(raw []byte) decode.Type {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '[':
			return decode.TypeArray
		case 'n':
			return decode.TypeNull
		}
		return decode.TypeObject // anything else: not an array, refused by the caller
	}
	return decode.TypeAbsent
}

// wantsProgress reports whether the caller asked for progress (a progressToken in _meta):
// only then is the backend asked for it.
func wantsProgress(r *fastmcp.Request) bool {
	t := decode.Lookup(r.Meta(), "progressToken").Type()
	return t != decode.TypeAbsent && t != decode.TypeNull
}

func isObject(raw json.RawMessage) bool {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c == '{'
	}
	return false
}
