package main

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connectGoSDK connects go-sdk's client with its Streamable HTTP transport as an application
// would (the default HTTP client; no standalone SSE stream, which a tools/call load never
// reads). legacy pins the initialize handshake at 2025-11-25; else the SDK's default,
// 2026-07-28 by server/discover.
func connectGoSDK(ctx context.Context, url string, legacy bool) (*session, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "bench-clients", Version: "v0.0.1"}, nil)
	var opts *mcp.ClientSessionOptions
	if legacy {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
	}
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true}, opts)
	if err != nil {
		return nil, fmt.Errorf("go-sdk: connect: %w", err)
	}
	params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": echoText}}
	return &session{
		protocol: cs.InitializeResult().ProtocolVersion,
		module:   moduleVersion("github.com/modelcontextprotocol/go-sdk"),
		call: func(ctx context.Context) error {
			res, err := cs.CallTool(ctx, params)
			if err != nil {
				return fmt.Errorf("go-sdk: tools/call: %w", err)
			}
			if res.IsError || len(res.Content) != 1 {
				return fmt.Errorf("go-sdk: tools/call: unexpected result %+v", res)
			}
			if t, ok := res.Content[0].(*mcp.TextContent); !ok || t.Text != echoText {
				return fmt.Errorf("go-sdk: tools/call: unexpected content %+v", res.Content[0])
			}
			return nil
		},
		close: cs.Close,
	}, nil
}
