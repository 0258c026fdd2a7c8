package main

import (
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testServeDrainDelay: with --health and --drain-delay, SIGTERM turns /readyz to 503 while
// serve goes on accepting and answering requests (on new connections too); a second signal
// ends the delay, and serve exits 0. The delay is a minute, so only the second signal can
// end the test in time.
func testServeDrainDelay(t *testing.T, bin string) {
	s := startServe(t, bin, "--addr", "127.0.0.1:0", "--health", "--drain-delay", "1m")
	readyz := strings.TrimSuffix(s.url, "/mcp") + "/readyz"
	status := func() int {
		t.Helper()
		resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}).Get(readyz)
		require.NoError(t, err, "the listener accepts; stderr:\n%s", s.stderr.String())
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	require.Equal(t, http.StatusOK, status())
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	deadline := time.Now().Add(30 * time.Second)
	for status() != http.StatusServiceUnavailable { // the signal's handling: no fixed pause
		require.True(t, time.Now().Before(deadline), "/readyz never turned 503; stderr:\n%s", s.stderr.String())
	}
	code, body := post(t, s.url, "tools/call", "echo",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still here"},`+testMeta+`}}`)
	assert.Equal(t, http.StatusOK, code, "served during the delay")
	assert.Contains(t, body, `"text":"still here"`)

	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	start := time.Now()
	assert.Equal(t, 0, s.wait(t))
	assert.Less(t, time.Since(start), 30*time.Second, "the second signal ended the delay")
	// Read once serve has exited: its stderr reaches the buffer through a copying goroutine.
	assert.Contains(t, s.stderr.String(), "msg=draining delay=1m0s timeout=5s")
	assert.Contains(t, s.stderr.String(), "msg=stopped")
}
