package client

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
)

// Issue 21, 5: the notifications/cancelled of a call that timed out reaches the server even
// when Close follows at once: Close writes the lines already queued before it closes the
// server's input. The hook holds the writer on that line until Close has told it to stop,
// the moment the line used to be lost.
func TestStdioCancelledWrittenBeforeClose(t *testing.T) {
	hook := func(c *stdioConn, line []byte) {
		if strings.Contains(string(line), "notifications/cancelled") {
			<-c.quit
		}
	}
	testHookStdioWrite.Store(&hook)
	t.Cleanup(func() { testHookStdioWrite.Store(nil) })
	tr, rs := newRawServer(t, stdioOptions{requestTimeout: 50 * time.Millisecond})
	c := stdioClient(t, tr, Config{Era: EraModern, RequestTimeout: 50 * time.Millisecond})
	done := make(chan error, 1)
	go func() {
		_, err := c.CallTool(context.Background(), "slow", nil)
		done <- err
	}()
	req := []byte(rs.read(t)) // never answered
	require.ErrorIs(t, <-done, context.DeadlineExceeded)
	closed := make(chan error, 1)
	go func() { closed <- c.Close() }()
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+string(decode.Lookup(req, "id").Raw())+`,"reason":"cancelled by the client"}}`, rs.read(t))
	select {
	case err := <-closed:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return")
	}
}

// Issue 21, 5: a response line that is not JSON-RPC but names a pending call's id fails that
// call at once with ErrMalformed, instead of leaving it to its RequestTimeout; the next
// call is served.
func TestStdioMalformedResponseFailsItsCall(t *testing.T) {
	tr, rs := newRawServer(t, stdioOptions{})
	c := stdioClient(t, tr, Config{Era: EraModern, RequestTimeout: time.Minute})
	done := make(chan error, 1)
	go func() {
		_, err := c.CallTool(context.Background(), "echo", nil)
		done <- err
	}()
	id := string(decode.Lookup([]byte(rs.read(t)), "id").Raw())
	rs.write(t, `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[}`)
	select {
	case err := <-done:
		require.ErrorIs(t, err, ErrMalformed)
		assert.ErrorContains(t, err, "client: malformed response: the server's line for request "+id+" is not JSON-RPC")
	case <-time.After(10 * time.Second):
		t.Fatal("the call waited for its timeout")
	}

	go func() {
		_, err := c.CallTool(context.Background(), "echo", nil)
		done <- err
	}()
	id = string(decode.Lookup([]byte(rs.read(t)), "id").Raw())
	rs.write(t, `{"jsonrpc":"2.0","id":`+id+`,"result":{"resultType":"complete","content":[]}}`)
	require.NoError(t, <-done)
}
