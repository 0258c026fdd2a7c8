// Package client is an MCP client for servers of both protocol eras: 2026-07-28 (no
// handshake, per-request _meta, multi round-trip requests) and the initialize era
// (2025-11-25, 2025-06-18), over a pooled HTTP transport built on fasthttp, or over stdio.
//
// # Connecting
//
// [Connect] takes an http(s) URL of the server's endpoint, or an empty target with
// Config.Command to start a server over stdio. Config.Era pins 2026-07-28 (the default), pins
// the initialize era, or probes (EraAuto).
//
// # What a call does
//
// Every modern request carries _meta (protocolVersion, clientCapabilities from the configured
// input handlers, clientInfo) and, over HTTP, the mirrored MCP-Protocol-Version, Mcp-Method,
// Mcp-Name and Mcp-Param-* headers (values that are not plain ASCII travel as
// =?base64?…?=). A server error is an [*Error]; a tool's own failure is a result with IsError.
// An input_required result is answered with the configured handlers and retried, with a new
// id and the server's exact requestState, up to MaxInputRounds. On a legacy connection the
// same handlers answer the server's requests, which arrive on the call's event stream and are
// answered by a separate POST. Cancelling a call's context cancels it on the server: by
// closing its connection (modern HTTP) or with notifications/cancelled (legacy).
//
// # Limits
//
// Each has a default and an error to test with errors.Is:
//
//   - PoolSize (4) connections per client; a request waits up to RequestTimeout for one:
//     ErrPoolTimeout.
//   - PoolIdleTimeout (30 s), checked when a connection is taken from the pool, and
//     PoolMaxRequests (100): the connection is closed and counted in [PoolStats].Retired.
//   - RequestTimeout (30 s) per request, from waiting for a connection to the response's end:
//     an error wrapping context.DeadlineExceeded.
//   - MaxResponseBytes (16 MiB) per body or event, checked while reading: ErrResponseTooLarge.
//   - MaxPages (1,000) per List call: ErrTooManyPages; a repeated cursor: ErrRepeatedCursor.
//   - MaxInputRounds (10) per call: ErrTooManyRounds.
//
// A connection is reused only after an HTTP/1.1 response with a complete Content-Length body
// and no Connection: close; event streams detach from the pool and close their socket at the
// end, and chunked, close-framed, malformed or failed responses close theirs.
package client
