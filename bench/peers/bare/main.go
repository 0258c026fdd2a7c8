// Command bare answers every POST /mcp with the response fastmcp sends for the demo echo
// call ({"text":"hello"}), the request's id spliced in, and does no MCP work: the ceiling of
// the network stack that fastmcp-bench compare measures the servers against.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"log"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"

	"github.com/valyala/fasthttp"
)

const (
	head = `{"jsonrpc":"2.0","id":`
	tail = `,"result":{"resultType":"complete","content":[{"type":"text","text":"hello"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fastmcp-bench","version":"devel"}}}}`
)

var idKey = []byte(`"id":`)

// idOf returns the id literal of a JSON-RPC request: the bytes after "id": up to the next
// comma or closing brace (ids are integers or strings without those in the benchmark).
func idOf(body []byte) []byte {
	i := bytes.Index(body, idKey)
	if i < 0 {
		return []byte("null")
	}
	v := body[i+len(idKey):]
	if j := bytes.IndexAny(v, ",}"); j >= 0 {
		return v[:j]
	}
	return []byte("null")
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	pprofAddr := flag.String("pprof", "", "serve net/http/pprof on this address (profiling the ceiling beside fastmcp)")
	flag.Parse()
	if *pprofAddr != "" {
		go func() { log.Println(http.ListenAndServe(*pprofAddr, nil)) }()
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	handler := func(ctx *fasthttp.RequestCtx) {
		if !ctx.IsPost() {
			ctx.SetStatusCode(fasthttp.StatusMethodNotAllowed)
			return
		}
		ctx.SetContentType("application/json")
		ctx.Response.AppendBodyString(head)
		ctx.Response.AppendBody(idOf(ctx.PostBody()))
		ctx.Response.AppendBodyString(tail)
	}
	srv := &fasthttp.Server{Handler: handler, Name: "bare", NoDefaultDate: false}
	line, _ := json.Marshal(map[string]string{"url": "http://" + ln.Addr().String() + "/mcp"})
	os.Stdout.Write(append(line, '\n'))
	log.Fatal(srv.Serve(ln))
}
