// Package loadtest drives MCP endpoints over Streamable HTTP and measures them: the load
// generator of the bench binary (cmd/fastmcp-bench), behind `fastmcp-bench run` and
// `compare`. It is internal because only that binary uses it; run the binary to measure an
// endpoint (`go run ./cmd/fastmcp-bench run -h`).
//
// Requests travel on keep-alive connections, written and read with fasthttp's request and
// response codecs over plain net.Conns, one goroutine per connection, so each scenario knows
// which connection was refused, closed unread or cut. By default every request is a
// 2026-07-28 tools/call of the demo echo tool with its _meta and the mirrored
// MCP-Protocol-Version, Mcp-Method and Mcp-Name headers (a legacy body would silently
// measure another code path); Target.Dialect selects the initialize-era form (2025-11-25):
// the call as a legacy client sends it after its handshake, without _meta and with only the
// MCP-Protocol-Version header. Check performs that handshake first (initialize without the
// header, which must negotiate 2025-11-25; notifications/initialized, which must get 202);
// a stateless server keeps nothing of it, so the scenarios' calls do not repeat it.
//
//	res, err := loadtest.Throughput(ctx, loadtest.ThroughputConfig{
//		Target:      loadtest.Target{URL: "http://127.0.0.1:8080/mcp"},
//		Connections: 32,
//		Duration:    5 * time.Second,
//	})
//	fmt.Println(res) // 127.0.0.1:8080: 61234 req/s on 32 connections, p99 1.21ms, errors: none
//
// # Checks
//
// Every response is checked: the status (200), the media type (application/json, or an
// event stream ending with the reply), "jsonrpc":"2.0", the id echoed byte for byte, a
// result object, and for the echo call the text of the first content block. A failed
// request is counted under one error kind (refused, closed, timeout, status 503, jsonrpc
// -32603, id-mismatch…) and every result reports them; a report with errors says so in its
// notes. Nothing is dropped. ThroughputResult.Answered also counts the warmup's checked
// replies: what divides a server counter read before and after a run (compare's allocations
// per request).
//
// # Closed and open loop
//
// Throughput is a closed loop: each connection sends its next request when the last is
// answered. On Linux its connections run on an epoll engine (EngineEpoll): one goroutine,
// raw non-blocking sockets, the same request bytes and checks, about wrk's CPU per request,
// so one CPU of load saturates a bare server on another; over TLS, for replies not framed
// by Content-Length, or with Engine EngineGoroutines, a goroutine per connection. Latency is an open loop: requests fall due at a constant rate and each latency
// is measured from the request's intended send time, so a stalled server (or generator)
// cannot hide its queueing (no coordinated omission); requests that fell due but could not
// be sent are reported as a backlog. Latencies go to HDR histograms (1 µs to 1 minute, three
// significant digits).
//
// # Scenarios
//
//   - Throughput: the maximum rate of checked echo calls.
//   - Latency: p50, p90, p99, p99.9 and max at a fixed rate (by default half of a probed
//     maximum).
//   - ConnCap: more connections than the endpoint's cap while a legitimate load runs: how
//     many excess connections were closed unread, and the legitimate p99 with and without.
//   - Streams (sse-keepalive): N listen streams: keepalive cadence and jitter, the time for
//     one tools/list_changed to reach all of them, the server's memory per stream.
//   - Drain: a shutdown in the middle of load: admitted requests lost (exact when the server
//     counts what it admitted), new connections refused, the drain time, listen streams
//     completed with their final response.
//   - Slowloris: clients trickling heads and bodies during legitimate load: how fast they
//     are cut, and the legitimate p99 with and without them.
//   - ProgressScenario: a tool reporting progress over a request-scoped event stream:
//     events per second.
//
// # Bounds
//
// Load only goes to loopback addresses (127.0.0.0/8, ::1, localhost): Target.URL is refused
// otherwise. Every loop is bounded by its duration and every request by its timeout
// (DefaultTimeout); streams by MaxStreams (10,000); a connection flood by 20,000 attempts.
package loadtest
