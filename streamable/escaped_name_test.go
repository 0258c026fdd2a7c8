package streamable

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/internal/wireschema"
)

// A body member the Mcp-Name header mirrors is compared on its text, however the body
// escapes it: an extension method named by params.itemId = "\u0041bc" is accepted with
// Mcp-Name: Abc, on every stack, and an x-mcp-header argument written with escapes matches
// its header too. The header carries the text, never the escape.
func TestEscapedMirroredMembers(t *testing.T) {
	const ext = "com.example/items"
	core := newCore(t)
	core.AddExtension(fastmcp.Extension{ID: ext, Methods: map[string]fastmcp.ExtensionMethod{
		"items/get": {NamedBy: "itemId", Serve: func(context.Context, *fastmcp.Request) (json.RawMessage, error) {
			return json.RawMessage(`{"resultType":"complete"}`), nil
		}},
	}})
	extMeta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"` + ext + `":{}}}}`
	get := `{"jsonrpc":"2.0","id":1,"method":"items/get","params":{"itemId":"\u0041bc",` + extMeta + `}}`
	region := call("2", "region_echo", `{"region":"\u0065u","text":"x"}`)
	mismatch := `{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"Mcp-Name header does not match the request"}}`
	for _, stack := range bothStacks {
		t.Run(stack, func(t *testing.T) {
			addr, _ := startStack(t, stack, core, ListenerConfig{})
			resp, body := exchangeAt(t, addr, postTo(addr, get, "Mcp-Method: items/get", "Mcp-Name: Abc"))
			require.Equal(t, http.StatusOK, resp.StatusCode, body)
			assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"test","version":"1.0.0"}}}}`, body)

			resp, body = exchangeAt(t, addr, postTo(addr, get, "Mcp-Method: items/get", `Mcp-Name: \u0041bc`))
			assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
			assert.Equal(t, mismatch, body)
			wireschema.RequireValid(t, "HeaderMismatchError", []byte(body))

			resp, body = exchangeAt(t, addr, postTo(addr, region, "Mcp-Method: tools/call", "Mcp-Name: region_echo", "Mcp-Param-Region: eu"))
			require.Equal(t, http.StatusOK, resp.StatusCode, body)
			assert.Contains(t, body, `"text":"eu: x"`)
		})
	}
}
