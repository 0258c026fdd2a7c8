package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http/httptest"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/client/inprocess"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fixtures"
	"github.com/fastmcp-go/fastmcp/internal/loadtest"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// startDemoServer serves the demo fixtures in the given revisions (all when none) on a
// loopback port of this process and returns its endpoint URL and tool count (-1 when it does
// not serve 2026-07-28, which the in-process client needs to count them).
func startDemoServer(t *testing.T, dialects ...fastmcp.Dialect) (string, int) {
	t.Helper()
	core, err := fastmcp.NewServer(fastmcp.Implementation{Name: "run-target-test", Version: "1.0.0"}, &fastmcp.Config{Dialects: dialects})
	require.NoError(t, err)
	fixtures.Demo(core)
	h, err := streamable.NewHandler(core, streamable.Config{})
	require.NoError(t, err)
	s := httptest.NewServer(h)
	t.Cleanup(func() {
		s.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		require.NoError(t, h.Close(ctx))
	})
	if len(dialects) > 0 && !slices.Contains(dialects, fastmcp.Modern) {
		return s.URL + "/mcp", -1 // the in-process client speaks 2026-07-28 only
	}
	c, err := inprocess.Connect(core, client.Config{})
	require.NoError(t, err)
	defer c.Close()
	tools, err := c.ListTools(context.Background())
	require.NoError(t, err)
	return s.URL + "/mcp", len(tools)
}

// closedURL is a loopback endpoint nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return "http://" + addr + "/mcp"
}

func TestDiscoverTarget(t *testing.T) {
	both, tools := startDemoServer(t)
	legacy, _ := startDemoServer(t, fastmcp.Legacy20251125)
	old, _ := startDemoServer(t, fastmcp.Legacy20250618)
	require.Positive(t, tools)

	t.Run("modern by server/discover", func(t *testing.T) {
		ti, err := discoverTarget(context.Background(), &runOptions{target: both})
		require.NoError(t, err)
		assert.Equal(t, &targetInfo{url: both, version: "2026-07-28", modern: true, tools: tools, tool: "echo", arg: "text",
			dialect: loadtest.Dialect2026}, ti)
		assert.Equal(t, "target "+both+`: 2026-07-28 (server/discover), `+itoa(tools)+` tools; the load calls echo with its string argument "text"`, ti.String())
	})
	t.Run("legacy by initialize", func(t *testing.T) {
		ti, err := discoverTarget(context.Background(), &runOptions{target: legacy})
		require.NoError(t, err)
		assert.Equal(t, "2025-11-25", ti.version)
		assert.False(t, ti.modern)
		assert.Equal(t, loadtest.DialectLegacy, ti.dialect, "the load speaks the target's revision")
		assert.Contains(t, ti.String(), ": 2025-11-25 (initialize), ")
	})
	t.Run("--dialect pins the revision checked", func(t *testing.T) {
		ti, err := discoverTarget(context.Background(), &runOptions{target: both, dialect: "2025-11-25", dialectSet: true})
		require.NoError(t, err)
		assert.Equal(t, loadtest.DialectLegacy, ti.dialect)
		assert.Contains(t, ti.String(), ": 2025-11-25 (initialize, pinned by --dialect), ")

		_, err = discoverTarget(context.Background(), &runOptions{target: legacy, dialect: "2026-07-28", dialectSet: true})
		require.Error(t, err, "a legacy-only server refuses the pinned modern revision")
		assert.Contains(t, err.Error(), "target "+legacy+": tools/list: ")
	})
	t.Run("another tool and argument", func(t *testing.T) {
		ti, err := discoverTarget(context.Background(), &runOptions{target: both, tool: "greet", arg: ""})
		require.Error(t, err, "greet is a prompt, not a tool")
		assert.Nil(t, ti)
		_, err = discoverTarget(context.Background(), &runOptions{target: both, tool: "region_echo"})
		assert.EqualError(t, err, "target "+both+`: tool region_echo: it requires region besides "text", and the load sends only "text"`)
	})
	t.Run("missing tool", func(t *testing.T) {
		_, err := discoverTarget(context.Background(), &runOptions{target: both, tool: "no_such_tool"})
		require.Error(t, err)
		assert.Regexp(t, `^target `+both+`: it lists no tool "no_such_tool", which the load calls \(--tool\); it lists: .*\becho\b`, err.Error())
	})
	t.Run("a revision the load does not speak", func(t *testing.T) {
		_, err := discoverTarget(context.Background(), &runOptions{target: old})
		assert.EqualError(t, err, "target "+old+": it speaks 2025-06-18; the load generator speaks 2026-07-28 and 2025-11-25")
	})
	t.Run("unreachable", func(t *testing.T) {
		url := closedURL(t)
		_, err := discoverTarget(context.Background(), &runOptions{target: url})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "target "+url+": unreachable or not an MCP server: ")
	})
	t.Run("not loopback", func(t *testing.T) {
		_, err := discoverTarget(context.Background(), &runOptions{target: "http://192.0.2.1/mcp"})
		assert.EqualError(t, err, `target http://192.0.2.1/mcp: "192.0.2.1" is not a loopback address: load tests only target this machine`)
	})
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestLoadArgument(t *testing.T) {
	for _, tc := range []struct {
		name, schema, want, arg, err string
	}{
		{name: "text", schema: `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`, arg: "text"},
		{name: "the only string", schema: `{"type":"object","properties":{"msg":{"type":"string"},"n":{"type":"integer"}}}`, arg: "msg"},
		{name: "text wins", schema: `{"properties":{"a":{"type":"string"},"text":{"type":"string"}}}`, arg: "text"},
		{name: "--arg checked", schema: `{"properties":{"a":{"type":"string"},"text":{"type":"string"}}}`, want: "a", arg: "a"},
		{name: "no properties", schema: `{"type":"object"}`, arg: "text"},
		{name: "no schema, --arg", want: "q", arg: "q"},
		{name: "--arg not a string", schema: `{"properties":{"n":{"type":"integer"},"s":{"type":"string"}}}`, want: "n",
			err: `--arg "n" is not a string property of its inputSchema (string properties: s)`},
		{name: "two strings", schema: `{"properties":{"a":{"type":"string"},"b":{"type":"string"}}}`,
			err: "no string argument to fill: name one with --arg (string properties: a, b)"},
		{name: "no string", schema: `{"properties":{"n":{"type":"integer"}}}`,
			err: "no string argument to fill: name one with --arg (string properties: none)"},
		{name: "another required", schema: `{"properties":{"text":{"type":"string"},"n":{"type":"integer"}},"required":["n","text"]}`,
			err: `it requires n besides "text", and the load sends only "text"`},
		{name: "not JSON", schema: `{`, err: "inputSchema: unexpected end of JSON input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			arg, err := loadArgument(json.RawMessage(tc.schema), tc.want)
			if tc.err != "" {
				assert.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.arg, arg)
		})
	}
}
