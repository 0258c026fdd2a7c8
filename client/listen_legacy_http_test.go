package client

import (
	"bufio"
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/internal/wireschema"
)

// sessionfulFake is a sessionful initialize-era HTTP server, byte for byte: its GET stream
// writes what the test sends on events ("" ends the stream gracefully, "break" drops the
// connection mid-stream); every POST is recorded on posts.
type sessionfulFake struct {
	*fakeServer
	events chan string
	posts  chan *fakeReq
	gets   atomic.Int64
}

func newSessionfulFake(t *testing.T) *sessionfulFake {
	sf := &sessionfulFake{events: make(chan string), posts: make(chan *fakeReq, 16)}
	sf.fakeServer = newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		if strings.HasPrefix(string(r.head), "GET ") {
			sf.gets.Add(1)
			w.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
			_ = w.Flush()
			for {
				var ev string
				select {
				case ev = <-sf.events:
				case <-sf.done:
					return false
				}
				switch ev {
				case "":
					w.WriteString("0\r\n\r\n")
					return false
				case "break":
					return false
				}
				chunk := "data: " + ev + "\n\n"
				w.WriteString(strconv.FormatInt(int64(len(chunk)), 16) + "\r\n" + chunk + "\r\n")
				_ = w.Flush()
			}
		}
		sf.posts <- r
		switch id := idOf(r.body); {
		case strings.Contains(string(r.body), `"method":"initialize"`):
			jsonResp(w, `{"jsonrpc":"2.0","id":`+id+`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true}},"serverInfo":{"name":"s","version":"1"}}}`,
				"Mcp-Session-Id: sess-1")
		case id != "":
			jsonResp(w, `{"jsonrpc":"2.0","id":`+id+`,"result":{}}`)
		default:
			w.WriteString("HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")
		}
		return true
	})
	return sf
}

// post returns the next POST whose body contains method.
func (sf *sessionfulFake) post(t *testing.T, method string) *fakeReq {
	t.Helper()
	for r := range sf.posts {
		if strings.Contains(string(r.body), `"method":"`+method+`"`) {
			return r
		}
	}
	return nil
}

// A sessionful legacy server's GET stream carries the subscription; the URIs are subscribed
// and unsubscribed by POST, in the session.
func TestListenLegacyHTTPSession(t *testing.T) {
	sf := newSessionfulFake(t)
	c := connect(t, sf.url(), Config{Era: EraLegacy})
	s, err := c.Listen(context.Background(), ListenFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"file:///a"}})
	require.NoError(t, err)
	assert.Equal(t, ListenFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"file:///a"}}, s.Acknowledged)
	sub := sf.post(t, "resources/subscribe")
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"file:///a"}}`, string(sub.body))
	wireschema.RequireValidRev(t, "2025-11-25", "SubscribeRequest", sub.body)
	assert.Equal(t, "sess-1", sub.header("Mcp-Session-Id"))
	assert.Equal(t, "2025-11-25", sub.header("MCP-Protocol-Version"))

	sf.events <- `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
	sf.events <- `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///a"}}`
	assert.Equal(t, "notifications/tools/list_changed", next(t, s).Method)
	n := next(t, s)
	assert.Equal(t, "notifications/resources/updated", n.Method)
	assert.JSONEq(t, `{"uri":"file:///a"}`, string(n.Params))
	assert.Equal(t, int64(1), sf.gets.Load(), "Listen reuses the session's stream")

	require.NoError(t, s.Close())
	unsub := sf.post(t, "resources/unsubscribe")
	assert.Equal(t, `{"jsonrpc":"2.0","id":3,"method":"resources/unsubscribe","params":{"uri":"file:///a"}}`, string(unsub.body))
	assert.Equal(t, "sess-1", unsub.header("Mcp-Session-Id"))
	end, err := s.End()
	assert.Equal(t, EndLocal, end)
	assert.NoError(t, err)
}

// Connect returns once a sessionful server has answered the session's GET stream, so the
// first request after it never races the stream: a server that answers a request on the
// stream it saw first (the conformance suite's sse-retry one does) sees the two in order.
func TestConnectWaitsForTheSessionStream(t *testing.T) {
	for range 20 {
		sf := newSessionfulFake(t)
		c := connect(t, sf.url(), Config{Era: EraLegacy})
		require.Equal(t, int64(1), sf.gets.Load(), "Connect returned before the server had the GET")
		require.NoError(t, c.Close())
	}
}

// The server ending its GET stream at an event boundary ends the subscriptions gracefully;
// a stream that breaks ends them remotely. A later Listen opens a new stream.
func TestListenLegacyHTTPStreamEnds(t *testing.T) {
	sf := newSessionfulFake(t)
	c := connect(t, sf.url(), Config{Era: EraLegacy})
	s, err := c.Listen(context.Background(), ListenFilter{ToolsListChanged: true})
	require.NoError(t, err)
	sf.events <- ""
	end, err := waitDone(t, s)
	assert.Equal(t, EndGraceful, end)
	assert.NoError(t, err)

	s, err = c.Listen(context.Background(), ListenFilter{ToolsListChanged: true})
	require.NoError(t, err)
	assert.Equal(t, int64(2), sf.gets.Load(), "a new GET stream")
	sf.events <- `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
	assert.Equal(t, "notifications/tools/list_changed", next(t, s).Method)
	sf.events <- "break"
	end, err = waitDone(t, s)
	assert.Equal(t, EndRemote, end)
	assert.ErrorContains(t, err, "the legacy event stream ended")
}

// A sessionful server that never answers the GET cannot hold Listen: the stream's head is
// bounded by RequestTimeout like any request's.
func TestListenLegacyHTTPGetUnanswered(t *testing.T) {
	var f *fakeServer
	f = newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		if strings.HasPrefix(string(r.head), "GET ") {
			<-f.done // never answers
			return false
		}
		if id := idOf(r.body); id != "" {
			jsonResp(w, `{"jsonrpc":"2.0","id":`+id+`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"s","version":"1"}}}`,
				"Mcp-Session-Id: sess-1")
			return true
		}
		w.WriteString("HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")
		return true
	})
	c := connect(t, f.url(), Config{Era: EraLegacy, RequestTimeout: 200 * time.Millisecond})
	_, err := c.Listen(context.Background(), ListenFilter{ToolsListChanged: true})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorContains(t, err, "opening the legacy event stream")
}
