package streamable

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// events reads server-sent events from r, sending each event's data on the channel, which
// is closed at the end of the stream. Comments (keepalives) are sent as ": keepalive".
func events(r io.Reader) <-chan string {
	ch := make(chan string, 64)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		var data []string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if data != nil {
					ch <- strings.Join(data, "\n")
					data = nil
				}
			case strings.HasPrefix(line, ":"):
				ch <- line
			case strings.HasPrefix(line, "data: "):
				data = append(data, strings.TrimPrefix(line, "data: "))
			}
		}
	}()
	return ch
}

func next(t testing.TB, ch <-chan string) string {
	t.Helper()
	select {
	case e, ok := <-ch:
		require.True(t, ok, "stream ended")
		return e
	case <-time.After(10 * time.Second):
		t.Fatal("no event")
		return ""
	}
}

func listenBody(id string, filter string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"subscriptions/listen","params":{` + meta + `,"notifications":` + filter + `}}`
}

// Seed case 17: a listen stream sends the acknowledgement, the events, and on shutdown its
// completion response, with the stream headers and no Content-Length.
func TestListenStream(t *testing.T) {
	core := newCore(t)
	s := startServer(t, core, ListenerConfig{})
	c := dial(t, s)
	_, err := io.WriteString(c, post(s, listenBody(`"L1"`, `{"toolsListChanged":true}`), "Mcp-Method: subscriptions/listen"))
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	assert.Equal(t, "no", resp.Header.Get("X-Accel-Buffering"))
	assert.Equal(t, "no-cache", resp.Header.Get("Cache-Control"))
	assert.Empty(t, resp.Header.Get("Content-Length"))
	ev := events(resp.Body)
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L1"},"notifications":{"toolsListChanged":true}}}`, next(t, ev))

	core.RemoveTools("sleep")
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L1"}}}`, next(t, ev))
	assert.Equal(t, int64(1), s.Stats().OpenStreams)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, s.Shutdown(ctx))
	assert.Equal(t, `{"jsonrpc":"2.0","id":"L1","result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"test","version":"1.0.0"},"io.modelcontextprotocol/subscriptionId":"L1"}}}`, next(t, ev))
	_, open := <-ev
	assert.False(t, open, "the stream ends after the completion response")
}

// Keepalive comments flow on an idle listen stream.
func TestListenKeepAlive(t *testing.T) {
	s := startServer(t, newCore(t), ListenerConfig{Config: Config{KeepAliveInterval: 20 * time.Millisecond}})
	c := dial(t, s)
	_, _ = io.WriteString(c, post(s, listenBody("1", `{"toolsListChanged":true}`), "Mcp-Method: subscriptions/listen"))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	ev := events(resp.Body)
	assert.Contains(t, next(t, ev), "acknowledged")
	assert.Equal(t, ": keepalive", next(t, ev))
	assert.Equal(t, ": keepalive", next(t, ev))
}

// Seed case 4: over MaxSubscriptions a listen gets 503 with its id; the slot returns when
// the holder's connection closes.
func TestMaxSubscriptions(t *testing.T) {
	s := startServer(t, newCore(t), ListenerConfig{Config: Config{MaxSubscriptions: 1, KeepAliveInterval: 10 * time.Millisecond}})
	first := dial(t, s)
	_, _ = io.WriteString(first, post(s, listenBody("1", `{"toolsListChanged":true}`), "Mcp-Method: subscriptions/listen"))
	resp, err := http.ReadResponse(bufio.NewReader(first), nil)
	require.NoError(t, err)
	assert.Contains(t, next(t, events(resp.Body)), "acknowledged")

	resp2, body := exchange(t, s, post(s, listenBody("2", `{}`), "Mcp-Method: subscriptions/listen"))
	assert.Equal(t, http.StatusServiceUnavailable, resp2.StatusCode)
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Server subscription capacity exhausted"}}`, body)

	first.Close() // the next keepalive write fails and frees the slot
	require.Eventually(t, func() bool { return s.Stats().OpenStreams == 0 }, 5*time.Second, 5*time.Millisecond)
	c := dial(t, s)
	_, _ = io.WriteString(c, post(s, listenBody("3", `{}`), "Mcp-Method: subscriptions/listen"))
	resp3, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp3.StatusCode)
}

// A tool that reports progress answers with an event stream: the progress notifications,
// then the result as the last event.
func TestProgressStream(t *testing.T) {
	s := startServer(t, newCore(t), ListenerConfig{})
	body := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p"},"name":"sleep","arguments":{"ms":35}}}`
	resp, raw := exchange(t, s, post(s, body, callHeaders("sleep")...))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	var got []string
	for e := range events(strings.NewReader(raw)) {
		got = append(got, e)
	}
	require.GreaterOrEqual(t, len(got), 2)
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}`, got[0])
	assert.Equal(t, `{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete","content":[{"type":"text","text":"slept"}],`+serverInfo+`}}`, got[len(got)-1])
}

// Seed case 13: progress does not extend the deadline: the stream ends with the timeout
// error, before all the progress the tool would send.
func TestProgressDoesNotExtendDeadline(t *testing.T) {
	s := startServer(t, newCore(t), ListenerConfig{Config: Config{RequestTimeout: 100 * time.Millisecond}})
	body := `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":1},"name":"sleep","arguments":{"ms":10000}}}`
	resp, raw := exchange(t, s, post(s, body, callHeaders("sleep")...))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	var got []string
	for e := range events(strings.NewReader(raw)) {
		got = append(got, e)
	}
	require.GreaterOrEqual(t, len(got), 2)
	assert.Less(t, len(got), 100)
	assert.Contains(t, got[0], `"notifications/progress"`)
	assert.Equal(t, `{"jsonrpc":"2.0","id":6,"error":{"code":-32603,"message":"Request execution timed out"}}`, got[len(got)-1])
}

var _ = fastmcp.Version
