package main

import (
	"io"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClusterCheckFlags(t *testing.T) {
	check, o, err := parseClusterCheck([]string{"events", "--proxy", "http://127.0.0.1:1/mcp", "--replica", "http://127.0.0.1:2/mcp", "--replica", "http://127.0.0.1:3/mcp"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "events", check)
	assert.Equal(t, []string{"http://127.0.0.1:2/mcp", "http://127.0.0.1:3/mcp"}, o.replicas)
	for _, args := range [][]string{
		{},
		{"nonsense", "--proxy", "http://127.0.0.1:1/mcp"},
		{"events"},
		{"events", "--proxy", "http://127.0.0.1:1/mcp"},
		{"events", "--proxy", "http://10.0.0.1:1/mcp", "--replica", "http://127.0.0.1:2/mcp"},
		{"tasks-create", "--proxy", "http://127.0.0.1:1/mcp"},
		{"tasks-await", "--proxy", "http://127.0.0.1:1/mcp"},
		{"no-hang", "--proxy", "http://127.0.0.1:1/mcp", "--workers", "0"},
		{"legacy-events", "--proxy", "http://127.0.0.1:1/mcp"},
		{"elicitation", "--proxy", "http://127.0.0.1:1/mcp", "--count", "0"},
	} {
		_, _, err := parseClusterCheck(args, io.Discard)
		assert.ErrorIs(t, err, errUsage, args)
	}
}

func TestEventCountVerdict(t *testing.T) {
	assert.NoError(t, eventCount{methodToolsChanged: 3, methodResourceUpdate: 3}.verdict(3))
	err := eventCount{methodToolsChanged: 1, methodResourceUpdate: 4}.verdict(3)
	require.Error(t, err)
	assert.Equal(t, "notifications/tools/list_changed: received 1 of 3 (the others were published on replicas this stream is not on); "+
		"notifications/resources/updated: received 4 for 3 published (1 duplicates)", err.Error())
}

// TestClusterCheckEvents runs the events check against real serve processes: one replica
// that is its own "proxy" hears itself exactly once; two replicas without a shared bus are
// the failure the check exists for (the stream hears only its own replica's events).
func TestClusterCheckEvents(t *testing.T) {
	bin := build(t)
	args := []string{"--addr", "127.0.0.1:0", "--fixtures", "demo,conformance", "--tasks-store", "off"}
	a := startServe(t, bin, args...)
	b := startServe(t, bin, args...)
	code, out, errOut := runBench(t, bin, "cluster-check", "events", "--proxy", a.url, "--replica", a.url, "--timeout", "20s")
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
	assert.Contains(t, out, "notifications/tools/list_changed 1, notifications/resources/updated 1, notifications/prompts/list_changed 1 (dropped 0")

	code, out, _ = runBench(t, bin, "cluster-check", "events", "--proxy", a.url, "--replica", a.url, "--replica", b.url, "--timeout", "3s")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "cluster-check events: FAIL: notifications/tools/list_changed: received 1 of 2")
}

// roundRobin is a reverse proxy that sends each request to the next of backends (endpoint
// URLs), with no affinity, streaming responses as they come: HAProxy's balance roundrobin in
// a test.
func roundRobin(t *testing.T, backends ...string) string {
	t.Helper()
	var targets []*url.URL
	for _, b := range backends {
		u, err := url.Parse(b)
		require.NoError(t, err)
		targets = append(targets, u)
	}
	var next atomic.Uint64
	p := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			u := targets[(next.Add(1)-1)%uint64(len(targets))]
			r.SetURL(&url.URL{Scheme: u.Scheme, Host: u.Host})
		},
		FlushInterval: -1,
	}
	s := httptest.NewServer(p)
	t.Cleanup(s.Close)
	return s.URL + "/mcp"
}

// TestClusterCheckElicitation: through one replica the answers reach the waiting handler;
// through a round-robin proxy over two replicas that share no bus, the first answer lands on
// the other replica and the call does not complete: the failure the check exists for.
func TestClusterCheckElicitation(t *testing.T) {
	bin := build(t)
	args := []string{"--addr", "127.0.0.1:0", "--fixtures", "demo,conformance", "--tasks-store", "off"}
	a := startServe(t, bin, args...)
	b := startServe(t, bin, args...)
	code, out, errOut := runBench(t, bin, "cluster-check", "elicitation", "--proxy", a.url, "--count", "3", "--deadline", "10s")
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
	assert.Contains(t, out, "elicitation: 3 of 3 test_elicitation calls through the proxy completed with their answer (3 elicitation/create answered)")

	code, out, _ = runBench(t, bin, "cluster-check", "elicitation", "--proxy", roundRobin(t, a.url, b.url), "--count", "3", "--deadline", "5s")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "elicitation: 0 of 3 test_elicitation calls through the proxy completed with their answer (1 elicitation/create answered)")
	assert.Contains(t, out, "cluster-check elicitation: FAIL: call 1 of 3: ")
}

// TestClusterCheckLegacyEvents: a serve without --legacy-sessions offers an initialize-era
// client no GET stream, and the check says so.
func TestClusterCheckLegacyEvents(t *testing.T) {
	bin := build(t)
	a := startServe(t, bin, "--addr", "127.0.0.1:0", "--fixtures", "demo,conformance", "--tasks-store", "off")
	code, out, _ := runBench(t, bin, "cluster-check", "legacy-events", "--proxy", a.url, "--replica", a.url, "--timeout", "10s")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "cluster-check legacy-events: FAIL: listen through the proxy: client: the server offers no event stream")
}
