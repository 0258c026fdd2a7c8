package main

import (
	"io"
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
