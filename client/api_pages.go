package client

import (
	"context"
	"iter"
)

// The list calls a page at a time, and as iterators that fetch a page when the previous one
// is used up (for t, err := range c.Tools(ctx) { … }). An iterator yields an error once,
// with a zero item, and stops; it follows at most MaxPages pages and refuses a repeated
// cursor, as the List calls do. Breaking out of the loop fetches no further page.

// Tools iterates over every tool. A tool with invalid x-mcp-header annotations is skipped
// with a logged warning; the others' annotations are remembered for CallTool.
func (c *Client) Tools(ctx context.Context) iter.Seq2[Tool, error] {
	hs := map[string][]headerArg{}
	keep := c.toolHeaderFilter(hs)
	return listSeq(ctx, c, "tools/list", "tools", func(t Tool) bool {
		if !keep(t) {
			return false
		}
		c.tools.merge(t.Name, hs[t.Name])
		return true
	})
}

// ListToolsPage returns the page of tools after cursor ("" for the first) and the cursor of
// the next page ("" after the last). Its tools' x-mcp-header annotations are remembered,
// and one with invalid annotations is left out, as in ListTools.
func (c *Client) ListToolsPage(ctx context.Context, cursor string) ([]Tool, string, error) {
	tools, next, err := listPage[Tool](ctx, c, "tools/list", "tools", cursor)
	if err != nil {
		return nil, "", err
	}
	hs := map[string][]headerArg{}
	keep := c.toolHeaderFilter(hs)
	kept := tools[:0]
	for _, t := range tools {
		if keep(t) {
			c.tools.merge(t.Name, hs[t.Name])
			kept = append(kept, t)
		}
	}
	return kept, next, nil
}

// Resources iterates over every resource.
func (c *Client) Resources(ctx context.Context) iter.Seq2[Resource, error] {
	return listSeq[Resource](ctx, c, "resources/list", "resources", nil)
}

// ListResourcesPage returns the page of resources after cursor ("" for the first) and the
// next cursor ("" after the last).
func (c *Client) ListResourcesPage(ctx context.Context, cursor string) ([]Resource, string, error) {
	return listPage[Resource](ctx, c, "resources/list", "resources", cursor)
}

// ResourceTemplates iterates over every resource template.
func (c *Client) ResourceTemplates(ctx context.Context) iter.Seq2[ResourceTemplate, error] {
	return listSeq[ResourceTemplate](ctx, c, "resources/templates/list", "resourceTemplates", nil)
}

// ListResourceTemplatesPage returns the page of resource templates after cursor ("" for
// the first) and the next cursor ("" after the last).
func (c *Client) ListResourceTemplatesPage(ctx context.Context, cursor string) ([]ResourceTemplate, string, error) {
	return listPage[ResourceTemplate](ctx, c, "resources/templates/list", "resourceTemplates", cursor)
}

// Prompts iterates over every prompt.
func (c *Client) Prompts(ctx context.Context) iter.Seq2[Prompt, error] {
	return listSeq[Prompt](ctx, c, "prompts/list", "prompts", nil)
}

// ListPromptsPage returns the page of prompts after cursor ("" for the first) and the next
// cursor ("" after the last).
func (c *Client) ListPromptsPage(ctx context.Context, cursor string) ([]Prompt, string, error) {
	return listPage[Prompt](ctx, c, "prompts/list", "prompts", cursor)
}
