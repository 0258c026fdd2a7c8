// Command bare answers every POST /mcp with the bytes fastmcp sends for the demo echo call
// ({"text":"hello"}) in the request's protocol revision, the request's id spliced in, and
// does no MCP work: the ceiling of the network stack that fastmcp-bench compare measures the
// servers against. A request with a 2025-11-25 MCP-Protocol-Version header gets the
// initialize-era reply (no resultType, no _meta); one without the header is the handshake a
// legacy client opens with, answered with an initialize result (or 202 for a notification),
// so compare's legacy check passes as it does against the servers.
package main

import (
	"bytes"
	"flag"
	"log"
	"net"

	"github.com/valyala/fasthttp"

	"github.com/fastmcp-go/fastmcp/bench/peers/internal/announce"
)

const (
	head       = `{"jsonrpc":"2.0","id":`
	modernTail = `,"result":{"resultType":"complete","content":[{"type":"text","text":"hello"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fastmcp-bench","version":"devel"}}}}`
	legacyTail = `,"result":{"content":[{"type":"text","text":"hello"}]}}`
	initTail   = `,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"bare","version":"devel"}}}`
)

var (
	idKey         = []byte(`"id":`)
	versionHeader = []byte("MCP-Protocol-Version")
	modern        = []byte("2026-07-28")
)

// idOf returns the id literal of a JSON-RPC request: the bytes after "id": up to the next
// comma or closing brace (ids are integers or strings without those in the benchmark), or
// nil for a notification.
func idOf(body []byte) []byte {
	i := bytes.Index(body, idKey)
	if i < 0 {
		return nil
	}
	v := body[i+len(idKey):]
	if j := bytes.IndexAny(v, ",}"); j >= 0 {
		return v[:j]
	}
	return nil
}

func handle(ctx *fasthttp.RequestCtx) {
	if !ctx.IsPost() {
		ctx.SetStatusCode(fasthttp.StatusMethodNotAllowed)
		return
	}
	id := idOf(ctx.PostBody())
	if id == nil {
		ctx.SetStatusCode(fasthttp.StatusAccepted)
		return
	}
	tail := legacyTail
	switch v := ctx.Request.Header.PeekBytes(versionHeader); {
	case bytes.Equal(v, modern):
		tail = modernTail
	case len(v) == 0:
		tail = initTail
	}
	ctx.SetContentType("application/json")
	ctx.Response.AppendBodyString(head)
	ctx.Response.AppendBody(id)
	ctx.Response.AppendBodyString(tail)
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	pprofAddr := flag.String("pprof", "", "serve net/http/pprof on this loopback address and name it in the readiness line")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	srv := &fasthttp.Server{Handler: handle, Name: "bare"}
	if err := announce.Ready(ln, *pprofAddr); err != nil {
		log.Fatal(err)
	}
	log.Fatal(srv.Serve(ln))
}
