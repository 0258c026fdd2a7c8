package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testServeGateway: serve --backend in front of a real HTTP backend (serve, demo fixtures)
// and a real stdio one (serve --stdio): both catalogs namespaced, each call served by its
// backend, and no fixture of the gateway's own.
func testServeGateway(t *testing.T, bin string) {
	backend := startServe(t, bin, "--addr", "127.0.0.1:0")
	gw := startServe(t, bin, "--addr", "127.0.0.1:0", "--backend", "web="+backend.url, "--backend", "local=stdio:"+bin+" serve --stdio")
	for _, name := range []string{"web__echo", "local__echo"} {
		code, body := post(t, gw.url, "tools/call", name,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+name+`","arguments":{"text":"hi"},`+testMeta+`}}`)
		require.Equal(t, 200, code, body)
		assert.Contains(t, body, `"content":[{"type":"text","text":"hi"}]`, name)
	}
	_, body := post(t, gw.url, "tools/list", "", `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+testMeta+`}}`)
	assert.Contains(t, body, `"name":"local__sleep"`)
	assert.NotContains(t, body, `"name":"echo"`, "no fixture of the gateway's own")

	solo := startServe(t, bin, "--addr", "127.0.0.1:0", "--backend", "web="+backend.url)
	code, body := post(t, solo.url, "tools/call", "echo",
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"plain"},`+testMeta+`}}`)
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `"content":[{"type":"text","text":"plain"}]`, "one backend: transparent")
}
