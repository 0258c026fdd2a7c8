package client

import (
	"bufio"
	"context"
	"errors"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawResp writes a response with the given status line, content type and body.
func rawResp(w *bufio.Writer, status, contentType, body string) {
	w.WriteString("HTTP/1.1 " + status + "\r\nContent-Type: " + contentType + "\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
}

// Issue 21, 3: a non-2xx response reaches the caller as one *HTTPError with its status,
// whether its body is text (go-sdk, mcp-go) or a JSON-RPC error (the TypeScript SDK's 404
// with id null); the JSON-RPC error is then found by errors.As too.
func TestHTTPErrorOneShape(t *testing.T) {
	cases := []struct {
		name, status, contentType, body string
		code                            int64 // 0: no JSON-RPC error
	}{
		{"text", "404 Not Found", "text/plain; charset=utf-8", "session not found\n", 0},
		{"json-rpc error, null id", "404 Not Found", "application/json",
			`{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}`, -32001},
		{"json-rpc error, the request's id", "400 Bad Request", "application/json",
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params"}}`, -32602},
		{"json that is no error", "500 Internal Server Error", "application/json", `{"oops":true}`, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
				rawResp(w, tc.status, tc.contentType, tc.body)
				return true
			})
			c := connect(t, f.url(), Config{Era: EraModern})
			_, err := c.CallTool(context.Background(), "echo", nil)
			var he *HTTPError
			require.ErrorAs(t, err, &he)
			status, _ := strconv.Atoi(tc.status[:3])
			assert.Equal(t, status, he.Status)
			assert.Equal(t, tc.body, string(he.Body))
			var e *Error
			if tc.code == 0 {
				assert.False(t, errors.As(err, &e), "no JSON-RPC error in the body")
				assert.Nil(t, he.Err)
				return
			}
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tc.code, e.Code)
			assert.Same(t, e, he.Err)
			assert.Equal(t, "client: HTTP "+tc.status[:3]+": "+e.Error(), err.Error())
		})
	}
}

// Issue 21, 5: an error response is the call's only when it carries the call's id or null;
// one with another id is ErrMalformed, as a result with another id is.
func TestErrorResponseIDChecked(t *testing.T) {
	cases := []struct {
		name, id string
		ours     bool
	}{
		{"its id", "", true},
		{"null", "null", true},
		{"another id", "99", false},
		{"a string id", `"1"`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
				id := tc.id
				if id == "" {
					id = idOf(r.body)
				}
				jsonResp(w, `{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32602,"message":"Invalid params"}}`)
				return true
			})
			c := connect(t, f.url(), Config{Era: EraModern})
			_, err := c.CallTool(context.Background(), "echo", nil)
			var e *Error
			if tc.ours {
				require.ErrorAs(t, err, &e)
				assert.Equal(t, int64(CodeInvalidParams), e.Code)
				return
			}
			require.ErrorIs(t, err, ErrMalformed)
			assert.False(t, errors.As(err, &e))
			assert.ErrorContains(t, err, "error response id "+tc.id+", want 1")
		})
	}
}

// Issue 21, 5: an error names the step that failed, once: a server that never answers the
// head is "waiting for the response head" (not "sending the request"), and a refused dial
// carries the package's prefix once.
func TestErrorTextsNameTheStep(t *testing.T) {
	var f *fakeServer
	f = newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		<-f.done // reads the request, never answers
		return false
	})
	c := connect(t, f.url(), Config{Era: EraModern, RequestTimeout: 50 * time.Millisecond})
	_, err := c.CallTool(context.Background(), "echo", nil)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.EqualError(t, err, "client: waiting for the response head: context deadline exceeded")

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	c = connect(t, "http://"+addr+"/mcp", Config{Era: EraModern})
	_, err = c.CallTool(context.Background(), "echo", nil)
	assert.EqualError(t, err, "client: connecting to "+addr+": dial tcp "+addr+": connect: connection refused")
	_, err = Connect(context.Background(), "http://"+addr+"/mcp", Config{Era: EraLegacy})
	assert.EqualError(t, err, "client: initialize: connecting to "+addr+": dial tcp "+addr+": connect: connection refused")
}
