package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// TestServeGatewayConfig: serve --gateway-config with a file naming an HTTP backend whose
// Authorization header comes from an environment variable and a stdio backend (serve
// --stdio), beside a --backend: every backend serves, the HTTP one sees its own credential
// and never the caller's. Then the file's errors, each refusing to start.
func TestServeGatewayConfig(t *testing.T) {
	bin := build(t)
	web := startCredentialBackend(t, "Bearer from-config-env")
	dir := t.TempDir()
	config := filepath.Join(dir, "gateway.json")
	require.NoError(t, os.WriteFile(config, []byte(`{"backends":[
		{"name":"web","url":"`+web.url+`","maxConcurrent":8,"timeout":"5s","headers":{"Authorization":"env:GW_CFG_WEB_AUTH"}},
		{"name":"local","command":"`+bin+`","args":["serve","--stdio"]}
	]}`), 0o600))
	t.Setenv("GW_CFG_WEB_AUTH", "Bearer from-config-env")
	gw := startServe(t, bin, "--addr", "127.0.0.1:0", "--gateway-config", config, "--backend", "other=stdio:"+bin+" serve --stdio")

	for _, name := range []string{"web__echo", "local__echo", "other__echo"} {
		code, body := postAs(t, gw.url, "Bearer caller-secret", name)
		require.Equal(t, 200, code, body)
		assert.Contains(t, body, `"content":[{"type":"text","text":"hi"}]`, name)
	}
	seen := web.seen()
	require.NotEmpty(t, seen)
	for _, a := range seen {
		assert.Equal(t, "Bearer from-config-env", a, "the backend sees only its own credential")
	}

	bad := func(name, body string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
		return path
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--gateway-config", bad("typo.json", `{"backends":[{"name":"web","url":"`+web.url+`","maxConcurent":8}]}`)},
			`backends[0]: unknown field "maxConcurent"`},
		{[]string{"--gateway-config", bad("inline.json", `{"backends":[{"name":"web","url":"`+web.url+`","headers":{"Authorization":"Bearer x"}}]}`)},
			`headers.Authorization: want "env:NAME" or "file:PATH": a secret is not written in the configuration`},
		{[]string{"--gateway-config", bad("unset.json", `{"backends":[{"name":"web","url":"`+web.url+`","headers":{"Authorization":"env:GW_CFG_UNSET"}}]}`)},
			`environment variable GW_CFG_UNSET is not set`},
		{[]string{"--gateway-config", bad("big.json", strings.Repeat(" ", 1<<20+1))},
			`larger than 1048576 bytes (MaxConfigFileBytes)`},
		{[]string{"--gateway-config", config, "--backend", "web=" + web.url},
			`serve: --backend: gateway: invalid configuration: backend name "web" given twice`},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, tc.args...)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		cancel()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "%v", tc.args)
		assert.NotZero(t, ee.ExitCode())
		assert.Contains(t, stderr.String(), tc.want)
		assert.Empty(t, stdout.String(), "no URL announced")
	}
}

// credentialBackend is an in-process MCP backend (an echo tool) that admits only requests
// carrying its credential, and records the Authorization headers it got.
type credentialBackend struct {
	url  string
	mu   sync.Mutex
	auth []string
}

func startCredentialBackend(t *testing.T, want string) *credentialBackend {
	t.Helper()
	core, err := fastmcp.NewServer(fastmcp.Implementation{Name: "web", Version: "1"}, nil)
	require.NoError(t, err)
	fastmcp.AddTool(core, fastmcp.Tool{Name: "echo", Description: "echoes text"},
		func(ctx context.Context, r *fastmcp.Request, in struct {
			Text string `json:"text"`
		}) (fastmcp.ToolResult, error) {
			return fastmcp.ToolResult{Text: in.Text}, nil
		})
	cb := &credentialBackend{}
	cfg := streamable.ListenerConfig{Addr: "127.0.0.1:0"}
	cfg.RequestGate = func(ctx context.Context, r streamable.GateRequest) (streamable.GateDecision, error) {
		got := ""
		cb.mu.Lock()
		for _, v := range r.Header.Values("Authorization") {
			got = string(v)
			cb.auth = append(cb.auth, got)
		}
		cb.mu.Unlock()
		if got != want {
			return streamable.GateDecision{Response: &streamable.GateResponse{Status: 401, ContentType: "application/json",
				Header: map[string]string{"WWW-Authenticate": "Bearer"}, Body: []byte(`{"error":"invalid_token"}`)}}, nil
		}
		return streamable.GateDecision{}, nil
	}
	s, err := streamable.New(core, cfg)
	require.NoError(t, err)
	require.NoError(t, s.Listen())
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
		require.ErrorIs(t, <-done, streamable.ErrServerClosed)
	})
	cb.url = s.URL()
	return cb
}

func (cb *credentialBackend) seen() []string {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	return append([]string(nil), cb.auth...)
}

// postAs calls tool with "hi" as a caller presenting authorization.
func postAs(t *testing.T, url, authorization, tool string) (int, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"text":"hi"},` + testMeta + `}}`
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	req.Header.Set("Authorization", authorization)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	reply, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(reply)
}
