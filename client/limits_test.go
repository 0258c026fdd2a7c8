package client

import (
	"bufio"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fixtures"
	"github.com/fastmcp-go/fastmcp/streamable"
)

func TestServerClosesMidResponse(t *testing.T) {
	for name, resp := range map[string]string{
		"content-length": "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"",
		"chunked":        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n40\r\n{\"jsonrpc\"",
		"event stream":   "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n10\r\ndata: {\"jsonrp",
		"head":           "HTTP/1.1 200 OK\r\nContent-Ty",
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, func(_ *fakeReq, w *bufio.Writer) bool {
				w.WriteString(resp)
				return false
			})
			c := connect(t, f.url(), Config{Era: EraModern})
			_, err := c.CallTool(context.Background(), "echo", nil)
			require.Error(t, err)
			assert.Equal(t, PoolStats{Dials: 1, Retired: 1}, c.Stats(), "a failed request closes its socket")
		})
	}
}

func TestMaxResponseBytes(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"` + strings.Repeat("x", 2000) + `"}]}}`
	for name, resp := range map[string]string{
		"content-length": "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(big)) + "\r\n\r\n" + big,
		"chunked":        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" + strconv.FormatInt(int64(len(big)), 16) + "\r\n" + big + "\r\n0\r\n\r\n",
		"event":          "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: " + big + "\n\n",
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, func(_ *fakeReq, w *bufio.Writer) bool {
				w.WriteString(resp)
				return false
			})
			c := connect(t, f.url(), Config{Era: EraModern, MaxResponseBytes: 1024})
			_, err := c.CallTool(context.Background(), "echo", nil)
			assert.ErrorIs(t, err, ErrResponseTooLarge)
		})
	}
	t.Run("our server", func(t *testing.T) {
		s := startServer(t, streamable.ListenerConfig{})
		c := connect(t, s.URL(), Config{Era: EraModern, MaxResponseBytes: 1024})
		_, err := c.CallTool(context.Background(), "echo", map[string]string{"text": strings.Repeat("y", 1024)})
		assert.ErrorIs(t, err, ErrResponseTooLarge)
		_, err = c.CallTool(context.Background(), "echo", map[string]string{"text": "fits"})
		assert.NoError(t, err)
	})
}

func TestRequestTimeout(t *testing.T) {
	var f *fakeServer
	ready := make(chan struct{})
	f = newFake(t, func(*fakeReq, *bufio.Writer) bool {
		<-ready
		<-f.done // never answers
		return false
	})
	close(ready)
	c := connect(t, f.url(), Config{Era: EraModern, RequestTimeout: 100 * time.Millisecond})
	start := time.Now()
	_, err := c.CallTool(context.Background(), "echo", nil)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Equal(t, PoolStats{Dials: 1, Retired: 1}, c.Stats())
}

// sleepStats reads the demo server's sleep counters.
func sleepStats(t *testing.T, c *Client) fixtures.SleepStats {
	st, err := Call[struct{}, fixtures.SleepStats](context.Background(), c, "sleep_stats", struct{}{})
	require.NoError(t, err)
	return st
}

// Cancelling the context cancels the call on the server: modern by closing the stream,
// legacy by notifications/cancelled.
func TestCancellationObservedServerSide(t *testing.T) {
	for _, era := range []Era{EraModern, EraLegacy} {
		t.Run(era.String(), func(t *testing.T) {
			s := startServer(t, streamable.ListenerConfig{})
			c := connect(t, s.URL(), Config{Era: era})
			ctx, cancel := context.WithCancel(context.Background())
			// The first progress update proves the handler runs; cancel then.
			_, err := c.CallTool(ctx, "sleep", map[string]int{"ms": 60000}, WithProgress(func(Progress) { cancel() }))
			assert.ErrorIs(t, err, context.Canceled)
			require.Eventually(t, func() bool { return sleepStats(t, c).Cancelled == 1 }, 10*time.Second, 5*time.Millisecond)
			assert.Equal(t, int64(0), sleepStats(t, c).Completed)
		})
	}
}

func TestPagingBounds(t *testing.T) {
	page := func(cursor string) string {
		return `{"resultType":"complete","ttlMs":0,"cacheScope":"private","tools":[{"name":"t` + cursor + `","inputSchema":{"type":"object"}}],"nextCursor":"` + cursor + `"}`
	}
	t.Run("repeated cursor", func(t *testing.T) {
		f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
			jsonResp(w, `{"jsonrpc":"2.0","id":`+idOf(r.body)+`,"result":`+page("same")+`}`)
			return true
		})
		c := connect(t, f.url(), Config{Era: EraModern})
		_, err := c.ListTools(context.Background())
		assert.ErrorIs(t, err, ErrRepeatedCursor)
	})
	t.Run("max pages", func(t *testing.T) {
		n := 0
		f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
			n++
			jsonResp(w, `{"jsonrpc":"2.0","id":`+idOf(r.body)+`,"result":`+page(strconv.Itoa(n))+`}`)
			return true
		})
		c := connect(t, f.url(), Config{Era: EraModern, MaxPages: 3})
		_, err := c.ListTools(context.Background())
		assert.ErrorIs(t, err, ErrTooManyPages)
		assert.Equal(t, 3, n)
	})
	t.Run("cursor sent back", func(t *testing.T) {
		var bodies []string
		f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
			bodies = append(bodies, string(r.body))
			res := page("c1")
			if strings.Contains(string(r.body), `"cursor":"c1"`) {
				res = `{"resultType":"complete","tools":[{"name":"last"}]}`
			}
			jsonResp(w, `{"jsonrpc":"2.0","id":`+idOf(r.body)+`,"result":`+res+`}`)
			return true
		})
		c := connect(t, f.url(), Config{Era: EraModern})
		tools, err := c.ListTools(context.Background())
		require.NoError(t, err)
		assert.Len(t, tools, 2)
		require.Len(t, bodies, 2)
		assert.Contains(t, bodies[1], `"params":{"cursor":"c1","_meta":`)
	})
}

// A server that asks for input forever: the client stops after MaxInputRounds retries, each
// with a new id and the server's exact requestState.
func TestMaxInputRounds(t *testing.T) {
	var bodies []string
	f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		bodies = append(bodies, string(r.body))
		state := `"s\u0041-` + strconv.Itoa(len(bodies)) + `"`
		jsonResp(w, `{"jsonrpc":"2.0","id":`+idOf(r.body)+`,"result":{"resultType":"input_required",`+
			`"inputRequests":{"q":{"method":"roots/list","params":{}}},"requestState":`+state+`}}`)
		return true
	})
	cfg := handlers()
	cfg.MaxInputRounds = 2
	cfg.Era = EraModern
	c := connect(t, f.url(), cfg)
	_, err := c.CallTool(context.Background(), "t", nil)
	assert.ErrorIs(t, err, ErrTooManyRounds)
	require.Len(t, bodies, 3)
	assert.Contains(t, bodies[0], `"id":1,`)
	assert.Contains(t, bodies[1], `"id":2,"method":"tools/call","params":{"name":"t","inputResponses":{"q":{"roots":[{"uri":"file:///a","name":"a"}]}},"requestState":"s\u0041-1","_meta"`)
	assert.Contains(t, bodies[2], `"id":3,`)
	assert.Contains(t, bodies[2], `"requestState":"s\u0041-2"`)
}
