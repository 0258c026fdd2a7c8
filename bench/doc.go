// Package bench holds fastmcp's end-to-end Go benchmarks: the whole Streamable HTTP stack
// (fasthttp listener, admission, decode, core, encode) over an in-memory listener, beside a
// bare fasthttp handler that answers the same bytes with no MCP work, the in-process ceiling.
// The echo call runs in both protocol paths (op=echo, 2026-07-28; op=echo-2025-11-25, the
// initialize-era call with only its MCP-Protocol-Version header), and
// TestLegacyEchoAllocsBudget holds the legacy path within 10% of the modern one's
// allocations.
// Names follow the key=value convention so benchstat can pivot them:
//
//	go test ./bench -run '^$' -bench . -benchmem -count 10 > new.txt
//	benchstat -col /server new.txt
//
// The decoder's comparative benchmarks (fastmcp's decode against encoding/json and sonic)
// live beside it, in package decode (BenchmarkDecode). Comparisons with other MCP servers
// live in the nested module bench/peers, driven by `fastmcp-bench compare --peers`.
package bench
