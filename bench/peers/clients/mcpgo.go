package main

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// connectMCPGo connects mcp-go's Streamable HTTP client as an application would (Start, then
// Initialize). legacy asks Initialize for 2025-11-25, which skips the server/discover probe;
// else the SDK's default, 2026-07-28 by server/discover.
func connectMCPGo(ctx context.Context, url string, legacy bool) (*session, error) {
	c, err := client.NewStreamableHttpClient(url)
	if err != nil {
		return nil, fmt.Errorf("mcp-go: %w", err)
	}
	if err := c.Start(ctx); err != nil {
		return nil, fmt.Errorf("mcp-go: start: %w", err)
	}
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: "bench-clients", Version: "v0.0.1"}
	if legacy {
		init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("mcp-go: initialize: %w", err)
	}
	var req mcp.CallToolRequest
	req.Params.Name = "echo"
	req.Params.Arguments = map[string]any{"text": echoText}
	return &session{
		protocol: res.ProtocolVersion,
		module:   moduleVersion("github.com/mark3labs/mcp-go"),
		call: func(ctx context.Context) error {
			res, err := c.CallTool(ctx, req)
			if err != nil {
				return fmt.Errorf("mcp-go: tools/call: %w", err)
			}
			if res.IsError || len(res.Content) != 1 {
				return fmt.Errorf("mcp-go: tools/call: unexpected result %+v", res)
			}
			if t, ok := res.Content[0].(mcp.TextContent); !ok || t.Text != echoText {
				return fmt.Errorf("mcp-go: tools/call: unexpected content %+v", res.Content[0])
			}
			return nil
		},
		close: c.Close,
	}, nil
}

// moduleVersion is "path version" of a dependency of this build.
func moduleVersion(path string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == path {
				return d.Path + " " + d.Version
			}
		}
	}
	return path
}
