// Package peers holds the comparison servers that `fastmcp-bench compare --peers` builds
// and runs beside fastmcp: an echo tool on github.com/modelcontextprotocol/go-sdk (stateless,
// JSON responses), on github.com/mark3labs/mcp-go (stateless), and a bare fasthttp server that
// answers every POST with the bytes fastmcp sends for the echo call, doing no MCP work: the
// ceiling of the network stack.
//
// Each server takes both protocol paths on one endpoint, told apart per request as fastmcp
// does: a request with the 2026-07-28 _meta is modern (go-sdk serves that revision only on
// stateless handlers); one with only the MCP-Protocol-Version header 2025-11-25 is an
// initialize-era call, which both SDKs serve statelessly without a prior initialize (go-sdk
// synthesizes the handshake's state for each request; mcp-go's stateless session manager
// accepts the missing session id). compare still performs the handshake once, as a legacy
// client would, to check that the era is served.
//
// The program clients is the other side: go-sdk's and mcp-go's MCP clients calling fastmcp's
// echo, one SDK and era per run, for `fastmcp-bench compare-clients`; it prints one JSON line
// of per-call figures measured in its own process (see its package doc).
//
// It is a module of its own so that the fastmcp module never depends on the peers. Each
// server takes -addr (default 127.0.0.1:0) and -pprof (a loopback address for
// net/http/pprof, none by default) and prints one JSON line once listening,
// {"url":"http://…/mcp","pprof":"http://…/debug/pprof/"}, as `fastmcp-bench serve --pprof`
// does (package internal/announce).
package peers
