package gateway

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWireNamespaced: with two backends, a caller sees each one's names behind its own
// prefix, and a call reaches the backend under the backend's own name with the caller's
// arguments, its content block forwarded as it was.
func TestWireNamespaced(t *testing.T) {
	urlA, _ := serveHTTP(t, newBackendServer("a", nil), "", nil)
	urlB, _ := serveHTTP(t, newBackendServer("b", nil), "", nil)
	_, gw := startGateway(t, Config{Backends: []Backend{{Name: "a", URL: urlA}, {Name: "b", URL: urlB}}})

	status, body := post(t, gw, "tools/call", "b__echo",
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"b__echo","arguments":{"text":"hi"},`+wireMeta+`}}`)
	assert.Equal(t, 200, status)
	assert.Equal(t, `{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[{"type":"text","text":"b: hi","annotations":{"priority":0.5}}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"gateway","version":"1"}}}}`, body)

	_, body = post(t, gw, "tools/list", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+wireMeta+`}}`)
	for _, name := range []string{`"a__echo"`, `"b__echo"`, `"a__fail"`, `"b__slow"`} {
		assert.Contains(t, body, `"name":`+name)
	}
	assert.NotContains(t, body, `"name":"echo"`)

	_, body = post(t, gw, "resources/read", "a+mem://note",
		`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"a+mem://note",`+wireMeta+`}}`)
	assert.Contains(t, body, `"contents":[{"uri":"a+mem://note","mimeType":"text/plain","text":"note of a"}]`)

	_, body = post(t, gw, "resources/read", "b+mem://items/42",
		`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"b+mem://items/42",`+wireMeta+`}}`)
	assert.Contains(t, body, `"contents":[{"uri":"b+mem://items/42","text":"b item 42"}]`)

	_, body = post(t, gw, "prompts/get", "a__hello",
		`{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"a__hello","arguments":{"who":"you"},`+wireMeta+`}}`)
	assert.Contains(t, body, `"messages":[{"role":"user","content":{"type":"text","text":"a says hello to you"}}]`)

	_, body = post(t, gw, "resources/templates/list", "",
		`{"jsonrpc":"2.0","id":5,"method":"resources/templates/list","params":{`+wireMeta+`}}`)
	assert.Contains(t, body, `"uriTemplate":"a+mem://items/{id}"`)
	assert.Contains(t, body, `"uriTemplate":"b+mem://items/{id}"`)
}

// TestWireTransparent: a gateway with one backend serves its names and URIs unchanged.
func TestWireTransparent(t *testing.T) {
	url, _ := serveHTTP(t, newBackendServer("solo", nil), "", nil)
	_, gw := startGateway(t, Config{Backends: []Backend{{Name: "solo", URL: url}}})
	_, body := post(t, gw, "tools/call", "echo",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},`+wireMeta+`}}`)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"solo: x","annotations":{"priority":0.5}}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"gateway","version":"1"}}}}`, body)
	_, body = post(t, gw, "resources/read", "mem://note",
		`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"mem://note",`+wireMeta+`}}`)
	assert.Contains(t, body, `"contents":[{"uri":"mem://note","mimeType":"text/plain","text":"note of solo"}]`)
}

// TestWireErrorForwarded: a backend's JSON-RPC error reaches the caller with its code,
// message and data.
func TestWireErrorForwarded(t *testing.T) {
	url, _ := serveHTTP(t, newBackendServer("a", nil), "", nil)
	urlB, _ := serveHTTP(t, newBackendServer("b", nil), "", nil)
	_, gw := startGateway(t, Config{Backends: []Backend{{Name: "a", URL: url}, {Name: "b", URL: urlB}}})
	_, body := post(t, gw, "tools/call", "a__fail",
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"a__fail","arguments":{},`+wireMeta+`}}`)
	require.Equal(t, `{"jsonrpc":"2.0","id":9,"error":{"code":-32042,"message":"Custom failure","data":{"why":"test"}}}`, body)
}
