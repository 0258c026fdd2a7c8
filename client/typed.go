package client

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/fastmcp-go/fastmcp/decode"
)

// ToolError is a tool's own failure (isError: true), carrying its text content.
type ToolError struct {
	Tool string
	Text string
}

func (e *ToolError) Error() string { return fmt.Sprintf("client: tool %s failed: %s", e.Tool, e.Text) }

// Call calls the tool name with in (marshalled as its arguments) and decodes its
// structuredContent into Out, or, when the result has none, its first text block: as JSON,
// or as it is when Out is string (a tool that answers in plain text). A tool error is a
// *ToolError.
func Call[In, Out any](ctx context.Context, c *Client, name string, in In, opts ...CallOption) (Out, error) {
	var out Out
	args, err := json.Marshal(in)
	if err != nil {
		return out, fmt.Errorf("client: arguments of %s: %w", name, err)
	}
	r, err := c.CallTool(ctx, name, json.RawMessage(args), opts...)
	if err != nil {
		return out, err
	}
	first := firstText(r.Content)
	if r.IsError {
		return out, &ToolError{Tool: name, Text: first}
	}
	src := []byte(r.StructuredContent)
	if len(src) == 0 {
		if s, ok := any(&out).(*string); ok {
			*s = first // a plain-text result: the text itself, not JSON to decode
			return out, nil
		}
		src = []byte(first)
	}
	if err := json.Unmarshal(src, &out); err != nil {
		return out, fmt.Errorf("client: result of %s: %w", name, err)
	}
	return out, nil
}

// firstText returns the text of the first text block of content.
func firstText(content []byte) string {
	var s string
	decode.Elements(content, func(v []byte, _ decode.Type) bool {
		if text(v, "type") == "text" {
			s = text(v, "text")
			return false
		}
		return true
	})
	return s
}
