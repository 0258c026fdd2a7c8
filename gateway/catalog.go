package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fastmcp-go/fastmcp/client"
)

// capabilities is what of a backend's capabilities the Gateway uses.
type capabilities struct {
	Tools       *listCap        `json:"tools"`
	Prompts     *listCap        `json:"prompts"`
	Resources   *listCap        `json:"resources"`
	Completions json.RawMessage `json:"completions"`
	// Extensions are a 2026-07-28 backend's (tasks.go reads the tasks extension's).
	Extensions map[string]json.RawMessage `json:"extensions"`
}

type listCap struct {
	ListChanged bool `json:"listChanged"`
	Subscribe   bool `json:"subscribe"` // resources only
}

// filter asks for the list_changed notifications the backend can send. A 2026-07-28
// backend declares no listChanged (every server sends them on a listen stream), so each
// declared kind is asked for.
func (c capabilities) filter() client.ListenFilter {
	return client.ListenFilter{ToolsListChanged: c.Tools != nil, PromptsListChanged: c.Prompts != nil, ResourcesListChanged: c.Resources != nil}
}

// catalog is one backend's listing.
type catalog struct {
	tools     []client.Tool
	prompts   []client.Prompt
	resources []client.Resource
	templates []client.ResourceTemplate
}

// loadCatalog lists every kind the backend declares, refusing more than max entries in all
// as soon as it sees them (the rest is never read).
func loadCatalog(ctx context.Context, c *client.Client, max int) (capabilities, catalog, error) {
	var caps capabilities
	var cat catalog
	d, err := c.Discover(ctx)
	if err != nil {
		return caps, cat, fmt.Errorf("gateway: reading the backend's capabilities: %w", err)
	}
	if len(d.Capabilities) > 0 {
		if err := json.Unmarshal(d.Capabilities, &caps); err != nil {
			return caps, cat, fmt.Errorf("gateway: the backend's capabilities: %w", err)
		}
	}
	n := 0
	if caps.Tools != nil {
		if cat.tools, err = pages(ctx, c.ListToolsPage, &n, max); err != nil {
			return caps, cat, err
		}
	}
	if caps.Prompts != nil {
		if cat.prompts, err = pages(ctx, c.ListPromptsPage, &n, max); err != nil {
			return caps, cat, err
		}
	}
	if caps.Resources != nil {
		if cat.resources, err = pages(ctx, c.ListResourcesPage, &n, max); err != nil {
			return caps, cat, err
		}
		// A backend with resources but no templates may not know the method at all.
		cat.templates, err = pages(ctx, c.ListResourceTemplatesPage, &n, max)
		var rpc *client.Error
		if err != nil && !(errors.As(err, &rpc) && rpc.Code == client.CodeMethodNotFound) {
			return caps, cat, err
		}
	}
	return caps, cat, nil
}

// pages follows one list's pages, counting its entries into *n. Pages are bounded too (max
// plus one), so a backend that sends empty pages forever is refused.
func pages[T any](ctx context.Context, page func(context.Context, string) ([]T, string, error), n *int, max int) ([]T, error) {
	var out []T
	cursor := ""
	for range max + 1 {
		items, next, err := page(ctx, cursor)
		if err != nil {
			return nil, fmt.Errorf("gateway: listing the backend's catalog: %w", err)
		}
		if *n += len(items); *n > max {
			return nil, fmt.Errorf("%w (%d)", ErrCatalogTooLarge, max)
		}
		out = append(out, items...)
		if next == "" {
			return out, nil
		}
		cursor = next
	}
	return nil, fmt.Errorf("%w (%d): more than %d pages", ErrCatalogTooLarge, max, max+1)
}
