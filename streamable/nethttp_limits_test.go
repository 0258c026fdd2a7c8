package streamable

import (
	"bufio"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRefusalsBeforeTheBodyBothStacks sends, as literal bytes, requests refused before their
// body is read: each is answered at once (the client sends no body, or only part of it, and
// waits) with the same status and body on both stacks, and the connection closes (a client
// that sends no Content-Length is broken: it gets no second chance on the connection). On the
// net/http adapter the head limit holds in a server with net/http's default limits (1 MiB
// plus 4 KiB of slack).
func TestRefusalsBeforeTheBodyBothStacks(t *testing.T) {
	const maxHead, maxBody = 1024, 250
	nullErr := func(msg string) string {
		return `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"` + msg + `"}}`
	}
	head := func(addr string, extra ...string) string {
		return "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n" +
			"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\n" +
			strings.Join(extra, "\r\n") + "\r\n\r\n"
	}
	tests := []struct {
		name   string
		raw    func(addr string) string
		status int
		body   string
		open   bool // the connection stays open
	}{
		{"head over MaxHeaderBytes, within net/http's slack", func(a string) string {
			return head(a, "X-Big: "+strings.Repeat("h", maxHead), "Content-Length: "+strconv.Itoa(len(list("1")))) + list("1")
		}, http.StatusRequestHeaderFieldsTooLarge, nullErr("Request header fields too large"), false},
		{"Content-Length over MaxBodyBytes, no body sent", func(a string) string {
			return head(a, "Content-Length: 100000")
		}, http.StatusRequestEntityTooLarge, nullErr("Request body exceeds the maximum size"), false},
		{"chunked, body still to come", func(a string) string {
			return head(a, "Transfer-Encoding: chunked") + "5\r\nhel"
		}, http.StatusLengthRequired, nullErr("Length Required: send a Content-Length and no Transfer-Encoding"), false},
		{"no Content-Length", func(a string) string {
			return head(a)
		}, http.StatusLengthRequired, nullErr("Length Required: send a Content-Length and no Transfer-Encoding"), false},
	}
	for _, stack := range bothStacks {
		t.Run(stack, func(t *testing.T) {
			addr, _ := startStack(t, stack, newCore(t), ListenerConfig{Config: Config{MaxHeaderBytes: maxHead, MaxBodyBytes: maxBody}})
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					c := dialAt(t, addr)
					require.NoError(t, c.SetDeadline(time.Now().Add(5*time.Second)))
					_, err := io.WriteString(c, tc.raw(addr))
					require.NoError(t, err)
					br := bufio.NewReader(c)
					resp, body := readResponse(t, br)
					assert.Equal(t, tc.status, resp.StatusCode)
					assert.Equal(t, tc.body, body)
					assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
					assert.Equal(t, !tc.open, resp.Close, "Connection: close")
				})
			}
			// A head under the limit is served.
			resp, _ := exchangeAt(t, addr, postTo(addr, list("1"), "Mcp-Method: tools/list", "X-Pad: "+strings.Repeat("p", maxHead-400)))
			assert.Equal(t, http.StatusOK, resp.StatusCode)
		})
	}
}
