package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
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

// testServeGatewayMRTR: a 2026-07-28 multi round-trip request across two gateway replicas
// (serve --backend, one --state-key-file) in front of one real backend (serve, conformance
// fixtures): the backend's input_required reaches the caller from replica A with its
// inputRequests unchanged, and the retry sent to replica B completes, the backend's own
// requestState carried inside the gateway's. A tampered state is refused by the gateway.
func testServeGatewayMRTR(t *testing.T, bin, ver string) {
	keys := filepath.Join(t.TempDir(), "keys")
	require.NoError(t, os.WriteFile(keys, []byte(base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32))+"\n"), 0o600))
	backend := startServe(t, bin, "--addr", "127.0.0.1:0", "--fixtures", "conformance")
	a := startServe(t, bin, "--addr", "127.0.0.1:0", "--backend", "b="+backend.url, "--state-key-file", keys)
	b := startServe(t, bin, "--addr", "127.0.0.1:0", "--backend", "b="+backend.url, "--state-key-file", keys)
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}`
	call := func(url, id, tool, extra string) (int, string) {
		return post(t, url, "tools/call", tool, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"`+tool+`","arguments":{},`+extra+meta+`}}`)
	}
	stateOf := func(body string) string {
		var res struct {
			Result struct {
				RequestState string `json:"requestState"`
			} `json:"result"`
		}
		require.NoError(t, json.Unmarshal([]byte(body), &res), body)
		require.NotEmpty(t, res.Result.RequestState, body)
		return res.Result.RequestState
	}

	// The backend's own state ("confirm") must come back to it for the call to complete.
	const tool = "test_input_required_result_request_state"
	code, body := call(a.url, "1", tool, "")
	require.Equal(t, 200, code, body)
	state := stateOf(body)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"confirm":{"method":"elicitation/create","params":{"mode":"form","message":"Please confirm","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}}}},"requestState":"`+state+`","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fastmcp-bench","version":"`+ver+`"}}}}`, body)
	code, body = call(b.url, "2", tool, `"inputResponses":{"confirm":{"action":"accept","content":{"ok":true}}},"requestState":"`+state+`",`)
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `"result":{"resultType":"complete","content":[{"type":"text","text":"state-ok: requestState validated"}]`, "retry on the other replica")

	tampered := state[:len(state)-2] + "AA"
	if tampered == state {
		tampered = state[:len(state)-2] + "BB"
	}
	_, body = call(b.url, "3", tool, `"inputResponses":{"confirm":{"action":"accept","content":{"ok":true}}},"requestState":"`+tampered+`",`)
	assert.Equal(t, `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid or expired request state"}}`, body)
}

// testServeGatewayParkedAcrossReplicas: an initialize-era backend's elicitation/create
// (serve --dialects 2025-11-25, conformance fixtures) becomes a 2026-07-28 caller's
// input_required at gateway replica A, where the backend's call waits; the caller's retry
// lands on replica B, which shares A's state keys and a NATS bus (--bus), and completes:
// B carried the answer to A and A's outcome back.
func testServeGatewayParkedAcrossReplicas(t *testing.T, bin string) {
	ns, err := natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: natsserver.RANDOM_PORT, NoLog: true, NoSigs: true})
	require.NoError(t, err)
	go ns.Start()
	require.True(t, ns.ReadyForConnections(30*time.Second))
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	keys := filepath.Join(t.TempDir(), "keys")
	require.NoError(t, os.WriteFile(keys, []byte(base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{5}, 32))+"\n"), 0o600))
	backend := startServe(t, bin, "--addr", "127.0.0.1:0", "--fixtures", "conformance", "--dialects", "2025-11-25")
	replica := func() *server {
		return startServe(t, bin, "--addr", "127.0.0.1:0", "--backend", "b="+backend.url, "--state-key-file", keys, "--bus", ns.ClientURL())
	}
	a, b := replica(), replica()
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}`
	call := func(url, id, extra string) (int, string) {
		return post(t, url, "tools/call", "test_elicitation", `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"test_elicitation","arguments":{"message":"Who?"},`+extra+meta+`}}`)
	}
	code, body := call(a.url, "1", "")
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `"inputRequests":{"elicitation_1":{"method":"elicitation/create","params":{"mode":"form","message":"Who?"`)
	var res struct {
		Result struct {
			RequestState string `json:"requestState"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &res), body)
	code, body = call(b.url, "2", `"inputResponses":{"elicitation_1":{"action":"accept","content":{"username":"ada","email":"ada@example.com"}}},"requestState":"`+res.Result.RequestState+`",`)
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `"result":{"resultType":"complete","content":[{"type":"text","text":"User response: `, "the retry on replica B completed the call parked on A")
	assert.Contains(t, body, `ada@example.com`)
}
