package client

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fixtures"
	"github.com/fastmcp-go/fastmcp/internal/wireschema"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// waitTimeout bounds each wait for something the server was made to send.
const waitTimeout = 10 * time.Second

// next returns the subscription's next notification, failing after waitTimeout.
func next(t *testing.T, s *Subscription) Notification {
	t.Helper()
	select {
	case n, ok := <-s.C:
		require.True(t, ok, "the subscription ended: %v", s)
		return n
	case <-time.After(waitTimeout):
		t.Fatal("no notification within the wait")
	}
	return Notification{}
}

// waitDone waits for the subscription's end, failing after waitTimeout.
func waitDone(t *testing.T, s *Subscription) (End, error) {
	t.Helper()
	select {
	case <-s.Done():
	case <-time.After(waitTimeout):
		t.Fatal("the subscription did not end")
	}
	return s.End()
}

// awaitEvents returns once our stdio server delivers catalog events to c: it serves them on
// a goroutine it starts after initialize, and an event published before that goroutine
// subscribes is lost (a race in the stdio package, not the client's). It triggers
// prompts/list_changed until one arrives, so tests that use this must not subscribe to
// prompts: a late duplicate may follow.
func awaitEvents(t *testing.T, c *Client) {
	t.Helper()
	s, err := c.Listen(context.Background(), ListenFilter{PromptsListChanged: true})
	require.NoError(t, err)
	defer s.Close()
	deadline := time.After(waitTimeout)
	for {
		_, err := c.CallTool(context.Background(), "test_trigger_prompt_change", nil)
		require.NoError(t, err)
		select {
		case <-s.C:
			return
		case <-time.After(20 * time.Millisecond): // the event was lost, or is late: trigger again
		case <-deadline:
			t.Fatal("the server delivered no event")
		}
	}
}

// Against our own server over stdio in the initialize era: the unsolicited list_changed and
// resources/updated of the kinds the subscription asked for reach it, and log messages.
func TestListenLegacyStdio(t *testing.T) {
	c := stdioClient(t, pipeServer(t, fixtureServer(t), stdioOptions{}), Config{Era: EraLegacy})
	require.False(t, c.Modern())
	awaitEvents(t, c)
	ctx := context.Background()
	sub, err := c.Listen(ctx, ListenFilter{ToolsListChanged: true, ResourceSubscriptions: []string{fixtures.CounterURI}, LogMessages: true})
	require.NoError(t, err)
	assert.Equal(t, ListenFilter{ToolsListChanged: true, ResourceSubscriptions: []string{fixtures.CounterURI}, LogMessages: true}, sub.Acknowledged)
	end, _ := sub.End()
	assert.Equal(t, EndNone, end)

	_, err = c.CallTool(ctx, "toggle", nil)
	require.NoError(t, err)
	n := next(t, sub)
	assert.Equal(t, "notifications/tools/list_changed", n.Method)

	_, err = c.CallTool(ctx, "bump", nil) // delivered only because the URI was subscribed
	require.NoError(t, err)
	n = next(t, sub)
	assert.Equal(t, "notifications/resources/updated", n.Method)
	assert.JSONEq(t, `{"uri":"demo://counter"}`, string(n.Params))

	_, err = c.CallTool(ctx, "test_tool_with_logging", nil)
	require.NoError(t, err)
	for _, want := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		n = next(t, sub)
		assert.Equal(t, "notifications/message", n.Method)
		assert.JSONEq(t, `{"level":"info","logger":"test_tool_with_logging","data":"`+want+`"}`, string(n.Params))
	}

	require.NoError(t, sub.Close())
	end, err = sub.End()
	assert.Equal(t, EndLocal, end)
	assert.NoError(t, err)
	_, open := <-sub.C
	assert.False(t, open, "C closes when the subscription ends")
	_, err = c.CallTool(ctx, "echo", map[string]string{"text": "hi"})
	require.NoError(t, err, "the connection keeps serving calls")
}

// A filter only gets the kinds it asked for; two subscriptions each get their own.
func TestListenLegacyStdioFilters(t *testing.T) {
	c := stdioClient(t, pipeServer(t, fixtureServer(t), stdioOptions{}), Config{Era: EraLegacy})
	ctx := context.Background()
	prompts, err := c.Listen(ctx, ListenFilter{PromptsListChanged: true})
	require.NoError(t, err)
	defer prompts.Close()
	tools, err := c.Listen(ctx, ListenFilter{ToolsListChanged: true})
	require.NoError(t, err)
	defer tools.Close()

	// The first tools event may be lost (see awaitEvents): trigger until one arrives.
	deadline := time.After(waitTimeout)
	for heard := false; !heard; {
		_, err = c.CallTool(ctx, "test_trigger_tool_change", nil)
		require.NoError(t, err)
		select {
		case n := <-tools.C:
			assert.Equal(t, "notifications/tools/list_changed", n.Method)
			heard = true
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			t.Fatal("the server delivered no event")
		}
	}
	_, err = c.CallTool(ctx, "test_trigger_prompt_change", nil)
	require.NoError(t, err)
	assert.Equal(t, "notifications/prompts/list_changed", next(t, prompts).Method, "the prompts subscription got no tools event first")
	for len(tools.C) > 0 {
		assert.Equal(t, "notifications/tools/list_changed", (<-tools.C).Method, "the tools subscription got no prompts event")
	}
}

// A full legacy subscription drops the newest notifications and counts them, as a modern one.
func TestListenLegacyDropsWhenFull(t *testing.T) {
	c := stdioClient(t, pipeServer(t, fixtureServer(t), stdioOptions{}), Config{Era: EraLegacy, ListenBuffer: 1})
	awaitEvents(t, c)
	ctx := context.Background()
	sub, err := c.Listen(ctx, ListenFilter{ResourceSubscriptions: []string{fixtures.CounterURI}})
	require.NoError(t, err)
	defer sub.Close()
	// The server coalesces updates of one URI that wait while it writes; each bump waits
	// for its notification to be dropped or held before the next.
	for i := range 3 {
		_, err := c.CallTool(ctx, "bump", nil)
		require.NoError(t, err)
		require.Eventually(t, func() bool { return len(sub.C)+int(sub.Dropped()) == i+1 }, waitTimeout, time.Millisecond)
	}
	assert.Equal(t, int64(2), sub.Dropped())
	assert.Len(t, sub.C, 1)
}

// legacyInit answers the initialize handshake of a raw stdio server with caps.
func legacyInit(t *testing.T, rs *rawServer, caps string) {
	t.Helper()
	init := rs.read(t)
	assert.Contains(t, init, `"method":"initialize"`)
	rs.write(t, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":`+caps+`,"serverInfo":{"name":"s","version":"1"}}}`)
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, rs.read(t))
}

// legacyRaw connects a legacy client to a raw stdio server whose initialize result declares
// caps.
func legacyRaw(t *testing.T, cfg Config, caps string) (*Client, *rawServer) {
	t.Helper()
	tr, rs := newRawServer(t, stdioOptions{})
	cfg.Era = EraLegacy
	cfg, err := cfg.withDefaults()
	require.NoError(t, err)
	made := make(chan *Client, 1)
	go func() {
		c, err := newClient(context.Background(), tr, cfg)
		assert.NoError(t, err)
		made <- c
	}()
	legacyInit(t, rs, caps)
	c := <-made
	require.NotNil(t, c)
	t.Cleanup(func() {
		_ = rs.out.Close() // the server exits first, so the client need not wait for it
		_ = c.Close()
	})
	return c, rs
}

// The wire of a legacy subscription: resources/subscribe for each URI (once however many
// subscriptions list it) and resources/unsubscribe when the last of them ends.
func TestListenLegacyWire(t *testing.T) {
	c, rs := legacyRaw(t, Config{}, `{"resources":{"subscribe":true},"tools":{"listChanged":true}}`)
	type opened struct {
		s   *Subscription
		err error
	}
	listen := func(f ListenFilter) chan opened {
		ch := make(chan opened, 1)
		go func() { s, err := c.Listen(context.Background(), f); ch <- opened{s, err} }()
		return ch
	}
	first := listen(ListenFilter{ToolsListChanged: true, PromptsListChanged: true, ResourceSubscriptions: []string{"file:///a"}})
	sub := rs.read(t)
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"file:///a"}}`, sub)
	wireschema.RequireValidRev(t, "2025-11-25", "SubscribeRequest", []byte(sub))
	rs.write(t, `{"jsonrpc":"2.0","id":2,"result":{}}`)
	a := <-first
	require.NoError(t, a.err)
	assert.Equal(t, ListenFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"file:///a"}}, a.s.Acknowledged,
		"no prompts capability: no promptsListChanged")

	b := <-listen(ListenFilter{ResourceSubscriptions: []string{"file:///a"}}) // already subscribed: nothing sent
	require.NoError(t, b.err)

	rs.write(t, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///a"}}`)
	rs.write(t, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///b"}}`)
	rs.write(t, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	assert.Equal(t, Notification{Method: "notifications/resources/updated", Params: json.RawMessage(`{"uri":"file:///a"}`)}, next(t, a.s))
	assert.Equal(t, Notification{Method: "notifications/tools/list_changed"}, next(t, a.s))
	assert.Equal(t, Notification{Method: "notifications/resources/updated", Params: json.RawMessage(`{"uri":"file:///a"}`)}, next(t, b.s))

	require.NoError(t, b.s.Close()) // a still holds file:///a: nothing sent
	closed := make(chan error, 1)
	go func() { closed <- a.s.Close() }()
	unsub := rs.read(t)
	assert.Equal(t, `{"jsonrpc":"2.0","id":3,"method":"resources/unsubscribe","params":{"uri":"file:///a"}}`, unsub)
	wireschema.RequireValidRev(t, "2025-11-25", "UnsubscribeRequest", []byte(unsub))
	rs.write(t, `{"jsonrpc":"2.0","id":3,"result":{}}`)
	require.NoError(t, <-closed)
	end, err := a.s.End()
	assert.Equal(t, EndLocal, end)
	assert.NoError(t, err)
}

// Without resources.subscribe the URIs are not subscribed and not acknowledged; a URI the
// server refuses is left out; the rest still subscribe.
func TestListenLegacyUnsubscribable(t *testing.T) {
	t.Run("no capability", func(t *testing.T) {
		c, _ := legacyRaw(t, Config{}, `{"resources":{}}`)
		s, err := c.Listen(context.Background(), ListenFilter{ResourceSubscriptions: []string{"file:///a"}, ResourcesListChanged: true})
		require.NoError(t, err)
		defer s.Close()
		assert.Equal(t, ListenFilter{}, s.Acknowledged)
	})
	t.Run("refused", func(t *testing.T) {
		c, rs := legacyRaw(t, Config{}, `{"resources":{"subscribe":true}}`)
		done := make(chan *Subscription, 1)
		go func() {
			s, err := c.Listen(context.Background(), ListenFilter{ResourceSubscriptions: []string{"file:///no", "file:///a"}})
			assert.NoError(t, err)
			done <- s
		}()
		assert.Contains(t, rs.read(t), `"uri":"file:///no"`)
		rs.write(t, `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params"}}`)
		assert.Contains(t, rs.read(t), `"uri":"file:///a"`)
		rs.write(t, `{"jsonrpc":"2.0","id":3,"result":{}}`)
		s := <-done
		require.NotNil(t, s)
		assert.Equal(t, []string{"file:///a"}, s.Acknowledged.ResourceSubscriptions)
		closed := make(chan error, 1)
		go func() { closed <- s.Close() }()
		assert.Contains(t, rs.read(t), `"method":"resources/unsubscribe","params":{"uri":"file:///a"}`)
		rs.write(t, `{"jsonrpc":"2.0","id":4,"result":{}}`)
		require.NoError(t, <-closed)
	})
}

// A stdio server that exits ends its subscriptions remotely, with the exit as the error, as
// it ends a modern listen stream; closing the client ends them with ErrClosed; a Listen
// after either fails at once.
func TestListenLegacyStdioEnds(t *testing.T) {
	t.Run("server exits", func(t *testing.T) {
		c, rs := legacyRaw(t, Config{}, `{"tools":{"listChanged":true}}`)
		s, err := c.Listen(context.Background(), ListenFilter{ToolsListChanged: true})
		require.NoError(t, err)
		require.NoError(t, rs.out.Close())
		end, err := waitDone(t, s)
		assert.Equal(t, EndRemote, end)
		assert.ErrorIs(t, err, ErrServerExited)
		_, err = c.Listen(context.Background(), ListenFilter{ToolsListChanged: true})
		assert.ErrorIs(t, err, ErrServerExited)
	})
	t.Run("client closes", func(t *testing.T) {
		c, _ := legacyRaw(t, Config{}, `{"tools":{"listChanged":true}}`)
		s, err := c.Listen(context.Background(), ListenFilter{ToolsListChanged: true})
		require.NoError(t, err)
		require.NoError(t, c.Close())
		end, err := waitDone(t, s)
		assert.Equal(t, EndRemote, end)
		assert.ErrorIs(t, err, ErrClosed)
		_, err = c.Listen(context.Background(), ListenFilter{ToolsListChanged: true})
		assert.ErrorIs(t, err, ErrClosed)
	})
	t.Run("context ends", func(t *testing.T) {
		c, _ := legacyRaw(t, Config{}, `{"tools":{"listChanged":true}}`)
		ctx, cancel := context.WithCancel(context.Background())
		s, err := c.Listen(ctx, ListenFilter{ToolsListChanged: true})
		require.NoError(t, err)
		cancel()
		end, err := waitDone(t, s)
		assert.Equal(t, EndLocal, end)
		assert.NoError(t, err)
	})
}

// Our streamable server keeps no sessions: its GET is 405, so a legacy Listen over HTTP has
// no channel to receive anything on and fails at once, naming why.
func TestListenLegacyStatelessHTTP(t *testing.T) {
	s := startServer(t, streamable.ListenerConfig{})
	c := connect(t, s.URL(), Config{Era: EraLegacy})
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	_, err := c.Listen(ctx, ListenFilter{ToolsListChanged: true})
	require.ErrorIs(t, err, ErrNoEventStream)
	var he *HTTPError
	require.ErrorAs(t, err, &he)
	assert.Equal(t, 405, he.Status)
	assert.NoError(t, ctx.Err(), "it failed, it did not wait")
}

// LogMessages is the client's own: a modern listen request never carries it.
func TestListenFilterLogMessagesNotSent(t *testing.T) {
	b, err := json.Marshal(ListenFilter{ToolsListChanged: true, LogMessages: true})
	require.NoError(t, err)
	assert.Equal(t, `{"toolsListChanged":true}`, string(b))
}
