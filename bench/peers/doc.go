// Package peers holds the comparison servers that `fastmcp-bench compare --peers` builds
// and runs beside fastmcp: an echo tool on github.com/modelcontextprotocol/go-sdk (stateless,
// JSON responses), on github.com/mark3labs/mcp-go (stateless), and a bare fasthttp server that
// answers every POST with the bytes fastmcp sends for the echo call, doing no MCP work: the
// ceiling of the network stack.
//
// It is a module of its own so that the fastmcp module never depends on the peers. Each
// program takes -addr (default 127.0.0.1:0) and prints one JSON line, {"url":"http://…/mcp"},
// once listening, as `fastmcp-bench serve` does.
package peers
