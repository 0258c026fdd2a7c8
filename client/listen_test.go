package client

import (
	"bufio"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/streamable"
)

func TestListen(t *testing.T) {
	s := startServer(t, streamable.ListenerConfig{})
	c := connect(t, s.URL(), Config{Era: EraModern})
	ctx := context.Background()
	sub, err := c.Listen(ctx, ListenFilter{ToolsListChanged: true})
	require.NoError(t, err)
	assert.True(t, sub.Acknowledged.ToolsListChanged)
	end, _ := sub.End()
	assert.Equal(t, EndNone, end)

	_, err = c.CallTool(ctx, "toggle", nil)
	require.NoError(t, err)
	n := <-sub.C
	assert.Equal(t, "notifications/tools/list_changed", n.Method)
	assert.Contains(t, string(n.Params), `"io.modelcontextprotocol/subscriptionId":`)

	require.NoError(t, sub.Close())
	end, err = sub.End()
	assert.Equal(t, EndLocal, end)
	assert.NoError(t, err)
	_, open := <-sub.C
	assert.False(t, open, "C closes when the subscription ends")
}

// The server's response to the listen request ends it gracefully; a broken stream is remote.
func TestListenEnds(t *testing.T) {
	ack := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\"params\":{\"notifications\":{\"toolsListChanged\":true}}}\n\n"
	for name, tc := range map[string]struct {
		tail string
		end  End
	}{
		"graceful": {"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\"}}\n\n", EndGraceful},
		"remote":   {"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n", EndRemote},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, func(_ *fakeReq, w *bufio.Writer) bool {
				w.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n" + ack + tc.tail)
				return false
			})
			c := connect(t, f.url(), Config{Era: EraModern})
			sub, err := c.Listen(context.Background(), ListenFilter{ToolsListChanged: true})
			require.NoError(t, err)
			<-sub.Done()
			end, err := sub.End()
			assert.Equal(t, tc.end, end)
			if tc.end == EndRemote {
				assert.Error(t, err)
			}
		})
	}
}

// A full buffer drops the newest notifications and counts them.
func TestListenDropsWhenFull(t *testing.T) {
	s := startServer(t, streamable.ListenerConfig{})
	c := connect(t, s.URL(), Config{Era: EraModern, ListenBuffer: 1})
	sub, err := c.Listen(context.Background(), ListenFilter{ToolsListChanged: true})
	require.NoError(t, err)
	defer sub.Close()
	// The server coalesces list_changed events that wait while it writes (on a loaded
	// machine three quick toggles could be one notification): each toggle waits for its
	// notification to be held or dropped before the next.
	for i := range 3 {
		_, err := c.CallTool(context.Background(), "toggle", nil)
		require.NoError(t, err)
		require.Eventually(t, func() bool { return len(sub.C)+int(sub.Dropped()) == i+1 }, 10*time.Second, time.Millisecond)
	}
	assert.Equal(t, int64(2), sub.Dropped())
	assert.Len(t, sub.C, 1)
}
