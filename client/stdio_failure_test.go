package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
)

func echoReq(id int) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},%s}}`, id, modernMeta)
}

func TestStdioServerExitFailsEveryPendingCall(t *testing.T) {
	tr, rs := newRawServer(t, stdioOptions{})
	errs := make(chan error, 3)
	for id := 1; id <= 3; id++ {
		go func() {
			_, err := tr.roundTrip(context.Background(), echoReq(id), nil, noMessages)
			errs <- err
		}()
	}
	for range 3 {
		rs.read(t) // every call is on the wire, so pending
	}
	require.NoError(t, rs.out.Close()) // the server exits mid-call
	for range 3 {
		err := <-errs
		require.ErrorIs(t, err, ErrServerExited)
		assert.EqualError(t, err, "client: stdio server exited: its output ended")
	}
	// And every call after fails at once the same way.
	_, err := tr.roundTrip(context.Background(), echoReq(4), nil, noMessages)
	require.ErrorIs(t, err, ErrServerExited)
}

func TestStdioOversizeLine(t *testing.T) {
	const max = 256
	tr, rs := newRawServer(t, stdioOptions{maxLine: max})
	errs := make(chan error, 1)
	go func() {
		_, err := tr.roundTrip(context.Background(), echoReq(1), nil, noMessages)
		errs <- err
	}()
	rs.read(t)
	// One byte over: max bytes and the newline. The id is first, so the call is failed now.
	rs.write(t, `{"jsonrpc":"2.0","id":1,"result":{"text":"`+strings.Repeat("x", max-45)+`"}}`)
	err := <-errs
	require.ErrorIs(t, err, ErrLineTooLong)
	assert.EqualError(t, err, "client: stdio line exceeds the maximum size (256 bytes)")

	// The next line is read normally, and a line of exactly max bytes is within the bound.
	go func() {
		_, err := tr.roundTrip(context.Background(), echoReq(2), nil, noMessages)
		errs <- err
	}()
	rs.read(t)
	rs.write(t, `{"jsonrpc":"2.0","id":2,"result":{"text":"`+strings.Repeat("x", max-46)+`"}}`)
	require.NoError(t, <-errs)
}

func TestStdioServerRequestsBounded(t *testing.T) {
	tr, rs := newRawServer(t, stdioOptions{maxServerRequests: 2})
	release := make(chan struct{})
	held := make(chan struct{}, 2)
	answer := func(msg []byte) ([]byte, error) {
		held <- struct{}{}
		<-release
		return decode.AppendResult(nil, decode.Lookup(msg, "id").Raw(), []byte(`{"roots":[]}`)), nil
	}
	errs := make(chan error, 1)
	go func() {
		_, err := tr.roundTrip(context.Background(), echoReq(1), nil, answer)
		errs <- err
	}()
	rs.read(t)
	rs.write(t, `{"jsonrpc":"2.0","id":"s1","method":"roots/list"}`)
	rs.write(t, `{"jsonrpc":"2.0","id":"s2","method":"roots/list"}`)
	<-held
	<-held
	rs.write(t, `{"jsonrpc":"2.0","id":"s3","method":"roots/list"}`)
	assert.Equal(t, `{"jsonrpc":"2.0","id":"s3","error":{"code":-32603,"message":"Client server-request capacity exhausted"}}`, rs.read(t))
	close(release)
	got := []string{rs.read(t), rs.read(t)}
	assert.ElementsMatch(t, []string{
		`{"jsonrpc":"2.0","id":"s1","result":{"roots":[]}}`,
		`{"jsonrpc":"2.0","id":"s2","result":{"roots":[]}}`,
	}, got)
	rs.write(t, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	require.NoError(t, <-errs)
}

func TestStdioProgressGoesToItsCall(t *testing.T) {
	tr, rs := newRawServer(t, stdioOptions{})
	var got []string
	onMessage := func(msg []byte) ([]byte, error) {
		got = append(got, string(msg))
		return nil, nil
	}
	errs := make(chan error, 1)
	go func() {
		_, err := tr.roundTrip(context.Background(), echoReq(5), nil, onMessage)
		errs <- err
	}()
	rs.read(t)
	progress := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":5,"progress":1}}`
	rs.write(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":99,"progress":1}}`)
	rs.write(t, progress)
	rs.write(t, `{"jsonrpc":"2.0","id":5,"result":{}}`)
	require.NoError(t, <-errs)
	assert.Equal(t, []string{progress}, got)
}

func TestStdioRequestTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr, rs := newRawServer(t, stdioOptions{requestTimeout: 30 * time.Second})
		c := stdioClient(t, tr, Config{Era: EraModern})
		errs := make(chan error, 1)
		go func() {
			_, err := c.CallTool(context.Background(), "echo", map[string]string{"text": "hi"})
			errs <- err
		}()
		req := []byte(rs.read(t)) // and the server never answers
		err := <-errs
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.EqualError(t, err, "client: stdio request timed out after 30s: context deadline exceeded")
		assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+
			string(decode.Lookup(req, "id").Raw())+`,"reason":"cancelled by the client"}}`, rs.read(t))
	})
}

func TestStdioServerRequestWithNoCallInFlight(t *testing.T) {
	_, rs := newRawServer(t, stdioOptions{})
	rs.write(t, `{"jsonrpc":"2.0","id":"s1","method":"roots/list"}`)
	assert.Equal(t, `{"jsonrpc":"2.0","id":"s1","error":{"code":-32603,"message":"Client has no request in flight to answer for"}}`, rs.read(t))
}

func TestStdioHandlerErrorEndsItsCall(t *testing.T) {
	tr, rs := newRawServer(t, stdioOptions{})
	failed := errors.New("user closed the dialog")
	errs := make(chan error, 1)
	go func() {
		_, err := tr.roundTrip(context.Background(), echoReq(1), nil, func([]byte) ([]byte, error) { return nil, failed })
		errs <- err
	}()
	rs.read(t)
	rs.write(t, `{"jsonrpc":"2.0","id":"s1","method":"elicitation/create","params":{}}`)
	require.ErrorIs(t, <-errs, failed)
	// The server still gets an answer, so it does not wait for one forever.
	assert.Equal(t, `{"jsonrpc":"2.0","id":"s1","error":{"code":-32603,"message":"Client handler failed"}}`, rs.read(t))
}

func TestStdioSkipsLinesThatAreNotJSONRPC(t *testing.T) {
	tr, rs := newRawServer(t, stdioOptions{})
	errs := make(chan error, 1)
	go func() {
		_, err := tr.roundTrip(context.Background(), echoReq(1), nil, noMessages)
		errs <- err
	}()
	rs.read(t)
	rs.write(t, `server starting on stdio...`) // a server that logs to stdout
	rs.write(t, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	require.NoError(t, <-errs)
}

// TestStdioServerThatReadsNothing: the write queue fills, and still every call ends by its
// request timeout.
func TestStdioServerThatReadsNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cr, cw := io.Pipe()
		sr, sw := io.Pipe()
		tr, err := newStdioTransport(sr, cw, stdioOptions{requestTimeout: 30 * time.Second})
		require.NoError(t, err)
		const calls = writeQueue + 4
		errs := make(chan error, calls)
		for id := range calls {
			go func() {
				_, err := tr.roundTrip(context.Background(), echoReq(id), nil, noMessages)
				errs <- err
			}()
		}
		for range calls {
			require.ErrorIs(t, <-errs, context.DeadlineExceeded)
		}
		_ = cr.Close() // the server goes: the blocked write fails
		_ = sw.Close()
		require.NoError(t, tr.close())
	})
}

// TestStdioCloseDoesNotWaitForeverForAHandler: a handler still running (a user who never
// answers) holds Close only for the close timeout.
func TestStdioCloseDoesNotWaitForeverForAHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr, rs := newRawServer(t, stdioOptions{closeTimeout: time.Second})
		release := make(chan struct{})
		defer close(release)
		running := make(chan struct{})
		errs := make(chan error, 1)
		go func() {
			_, err := tr.roundTrip(context.Background(), echoReq(1), nil, func([]byte) ([]byte, error) {
				close(running)
				<-release
				return nil, nil
			})
			errs <- err
		}()
		rs.read(t)
		rs.write(t, `{"jsonrpc":"2.0","id":"s1","method":"elicitation/create","params":{}}`)
		<-running
		_ = rs.out.Close() // the server exits; its reader is gone too
		go func() { _, _ = io.Copy(io.Discard, rs.lines.r) }()
		start := time.Now()
		require.NoError(t, tr.close())
		assert.Equal(t, time.Second, time.Since(start), "Close waited the close timeout, no more")
		err := <-errs // the server's exit or Close, whichever came first
		assert.True(t, errors.Is(err, ErrServerExited) || errors.Is(err, ErrClosed), "%v", err)
	})
}
