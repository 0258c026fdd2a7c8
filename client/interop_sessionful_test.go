package client

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sessionfulURLEnv names the URL of the official SDK 1.32.2 server in its sessionful mode.
const sessionfulURLEnv = "FASTMCP_SDK1_SESSIONFUL_URL"

// Legacy Listen against a sessionful server that is not ours: the official TypeScript SDK
// 1.32.2 (fixtures/sdk1_sessionful.mjs), whose unsolicited notifications arrive on the
// session's GET stream.
func TestInteropSessionfulListen(t *testing.T) {
	url := os.Getenv(sessionfulURLEnv)
	if url == "" {
		t.Skip("needs Node and the SDK: interop/client-lane.sh starts fixtures/sdk1_sessionful.mjs and sets " + sessionfulURLEnv)
	}
	ctx := context.Background()
	hook, logs := logSink()
	c := connect(t, url, Config{Era: EraLegacy, OnLog: hook})
	subscribed := func() string {
		res, err := c.CallTool(ctx, "subscriptions", nil)
		require.NoError(t, err)
		var content []struct{ Text string }
		require.NoError(t, json.Unmarshal(res.Content, &content))
		require.Len(t, content, 1)
		return content[0].Text
	}

	s, err := c.Listen(ctx, ListenFilter{ToolsListChanged: true, PromptsListChanged: true, ResourceSubscriptions: []string{"file:///a"}, LogMessages: true})
	require.NoError(t, err)
	assert.Equal(t, ListenFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"file:///a"}, LogMessages: true}, s.Acknowledged,
		"the server has no prompts")
	assert.Equal(t, `["file:///a"]`, subscribed())

	_, err = c.CallTool(ctx, "notify_all", nil)
	require.NoError(t, err)
	assert.Equal(t, "notifications/tools/list_changed", next(t, s).Method)
	n := next(t, s)
	assert.Equal(t, "notifications/resources/updated", n.Method)
	assert.JSONEq(t, `{"uri":"file:///a"}`, string(n.Params))
	n = next(t, s)
	assert.Equal(t, "notifications/message", n.Method)
	assert.JSONEq(t, `{"level":"info","logger":"interop","data":"outside any request"}`, string(n.Params))
	assert.Equal(t, LogMessage{Level: "info", Logger: "interop", Data: json.RawMessage(`"outside any request"`)}, nextLog(t, logs))

	require.NoError(t, s.Close())
	end, err := s.End()
	assert.Equal(t, EndLocal, end)
	assert.NoError(t, err)
	assert.Equal(t, `[]`, subscribed(), "Close unsubscribed the URI")
}
