// Package client is an MCP client for servers of both protocol eras: 2026-07-28 (no
// handshake, per-request _meta, MRTR) and the initialize era (2025-11-25, 2025-06-18), over a
// pooled HTTP transport built on fasthttp or over stdio.
package client
