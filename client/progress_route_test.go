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

	"github.com/fastmcp-go/fastmcp/decode"
)

// Issue 21, 5: a sessionful server may send a call's progress on the session's GET stream
// instead of the call's own: it reaches the call's callback by its token. The server answers
// the call only once the callback has run, so the order is fixed.
func TestProgressOnSessionStream(t *testing.T) {
	events := make(chan string, 4)
	delivered := make(chan Progress, 4)
	var f *fakeServer
	f = newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		head := string(r.head)
		if strings.HasPrefix(head, "GET ") {
			w.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
			_ = w.Flush()
			for {
				select {
				case ev := <-events:
					chunk := "data: " + ev + "\n\n"
					w.WriteString(strconv.FormatInt(int64(len(chunk)), 16) + "\r\n" + chunk + "\r\n")
					_ = w.Flush()
				case <-f.done:
					return false
				}
			}
		}
		if strings.HasPrefix(head, "DELETE ") {
			w.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
			return true
		}
		id := idOf(r.body)
		switch decode.Lookup(r.body, "method").String() {
		case "initialize":
			jsonResp(w, legacyInitResult(id, "2025-11-25"), "Mcp-Session-Id: sess-1")
		case "tools/call":
			tok := string(decode.Lookup(decode.Lookup(decode.Lookup(r.body, "params").Raw(), "_meta").Raw(), "progressToken").Raw())
			assert.Equal(t, id, tok, "the token is the request id")
			events <- `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + tok + `,"progress":1,"total":2,"message":"half"}}`
			select {
			case <-delivered:
			case <-time.After(10 * time.Second):
				t.Error("the progress on the GET stream never reached the call")
			}
			jsonResp(w, `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[]}}`)
		default:
			w.WriteString("HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")
		}
		return true
	})
	c := connect(t, f.url(), Config{Era: EraLegacy})
	var got []Progress
	_, err := c.CallTool(context.Background(), "slow", nil, WithProgress(func(p Progress) {
		got = append(got, p)
		delivered <- p
	}))
	require.NoError(t, err)
	assert.Equal(t, []Progress{{Progress: 1, Total: 2, Message: "half"}}, got)

	// After the call, its token is unknown: a late notification reaches no callback.
	c.deliverProgress([]byte("2"), []byte(`{"progressToken":2,"progress":2}`))
	assert.Len(t, got, 1)
}
