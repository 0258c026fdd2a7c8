package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/internal/wireschema"
)

// writeSelfSigned writes a fresh self-signed pair into dir and returns the files and the
// client configuration that trusts it.
func writeSelfSigned(t *testing.T, dir string) (certFile, keyFile string, trust *tls.Config) {
	t.Helper()
	certPEM, keyPEM, err := selfSignedPair(time.Now())
	require.NoError(t, err)
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	require.NoError(t, os.WriteFile(certFile, certPEM, 0o600))
	require.NoError(t, os.WriteFile(keyFile, keyPEM, 0o600))
	trust, err = trustPEM(certPEM)
	require.NoError(t, err)
	return certFile, keyFile, trust
}

// TestServeTLS runs serve --tls-cert --tls-key --health as a user would: it announces an
// https URL, answers a tools/call over TLS to a client that trusts the pair and nothing else,
// answers /readyz, and drains on SIGTERM; the flags' mistakes exit 2.
func TestServeTLS(t *testing.T) {
	bin := build(t)
	certFile, keyFile, trust := writeSelfSigned(t, t.TempDir())
	s := startServe(t, bin, "--addr", "127.0.0.1:0", "--tls-cert", certFile, "--tls-key", keyFile, "--health")
	require.True(t, strings.HasPrefix(s.url, "https://127.0.0.1:"), s.url)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: trust}, Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()

	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"over tls"},` + testMeta + `}}`
	req, err := http.NewRequest(http.MethodPost, s.url, strings.NewReader(body))
	require.NoError(t, err)
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo"} {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	require.NoError(t, err)
	reply, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "HTTP/1.1", resp.Proto)
	assert.Contains(t, string(reply), `"content":[{"type":"text","text":"over tls"}]`)
	wireschema.RequireValid(t, "CallToolResultResponse", reply)

	resp, err = client.Get(strings.TrimSuffix(s.url, "/mcp") + "/readyz")
	require.NoError(t, err)
	ready, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "ready\n", string(ready))

	_, err = (&http.Client{Timeout: 10 * time.Second}).Get(s.url)
	require.Error(t, err, "the system's roots do not trust the pair")
	assert.Equal(t, 0, s.stop(t, syscall.SIGTERM))

	help, err := exec.Command(bin, "serve", "-h").CombinedOutput()
	require.NoError(t, err)
	for _, flag := range []string{"-tls-cert", "-tls-key", "-health"} {
		assert.Regexp(t, `(?m)^  `+flag+`( |$)`, string(help))
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--tls-cert", certFile}, "serve: --tls-cert and --tls-key go together"},
		{[]string{"--health", "--stack", "nethttp"}, "only with --stack fasthttp"},
		{[]string{"--tls-cert", certFile, "--tls-key", keyFile, "--stdio"}, "not with --stdio"},
		{[]string{"--tls-cert", certFile, "--tls-key", certFile, "--addr", "127.0.0.1:0"}, "invalid config"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, append([]string{"serve"}, tc.args...)...)
			cmd.Stdin = strings.NewReader("")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			var ee *exec.ExitError
			require.ErrorAs(t, cmd.Run(), &ee)
			assert.Equal(t, 2, ee.ExitCode(), "stderr: %s", stderr.String())
			assert.Contains(t, stderr.String(), tc.want)
			assert.Empty(t, stdout.String())
		})
	}
}
