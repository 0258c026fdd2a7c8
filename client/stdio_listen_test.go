package client

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStdioListen: a subscriptions/listen stream over stdio gets its notifications by
// subscriptionId, outlives nothing it should, and ends locally on Close.
func TestStdioListen(t *testing.T) {
	c := stdioClient(t, pipeServer(t, fixtureServer(t), stdioOptions{}), Config{Era: EraModern})
	s, err := c.Listen(context.Background(), ListenFilter{ToolsListChanged: true})
	require.NoError(t, err)

	_, err = c.CallTool(context.Background(), "toggle", map[string]any{})
	require.NoError(t, err)
	n := <-s.C
	assert.Equal(t, "notifications/tools/list_changed", n.Method)

	require.NoError(t, s.Close())
	end, err := s.End()
	assert.Equal(t, EndLocal, end)
	assert.NoError(t, err)

	// The connection keeps serving calls.
	_, err = c.CallTool(context.Background(), "echo", map[string]string{"text": "hi"})
	require.NoError(t, err)
}

// TestStdioListenWithdrawn: a subscription let go is withdrawn on the wire, since nothing
// else tells a stdio server.
func TestStdioListenWithdrawn(t *testing.T) {
	tr, rs := newRawServer(t, stdioOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	heard := make(chan struct{})
	errs := make(chan error, 1)
	go func() {
		_, err := tr.roundTrip(ctx, []byte(`{"jsonrpc":"2.0","id":9,"method":"subscriptions/listen","params":{}}`),
			&headers{longLived: true}, func([]byte) ([]byte, error) { close(heard); return nil, nil })
		errs <- err
	}()
	rs.read(t)
	rs.write(t, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{},"_meta":{"io.modelcontextprotocol/subscriptionId":9}}}`)
	<-heard
	cancel()
	require.ErrorIs(t, <-errs, context.Canceled)
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`, rs.read(t))
}

// TestStdioListenOutlivesTheRequestTimeout: the timeout bounds a stream only until the
// server is heard.
func TestStdioListenOutlivesTheRequestTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr, rs := newRawServer(t, stdioOptions{requestTimeout: 30 * time.Second})
		errs := make(chan error, 1)
		go func() {
			_, err := tr.roundTrip(context.Background(), []byte(`{"jsonrpc":"2.0","id":9,"method":"subscriptions/listen","params":{}}`),
				&headers{longLived: true}, noMessages)
			errs <- err
		}()
		rs.read(t)
		rs.write(t, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":9}}}`)
		time.Sleep(time.Hour) // fake time in the bubble
		synctest.Wait()
		select {
		case err := <-errs:
			t.Fatalf("the stream ended: %v", err)
		default:
		}
		rs.write(t, `{"jsonrpc":"2.0","id":9,"result":{}}`)
		require.NoError(t, <-errs)

		// Unheard, a stream has the request's deadline like any call.
		go func() {
			_, err := tr.roundTrip(context.Background(), []byte(`{"jsonrpc":"2.0","id":10,"method":"subscriptions/listen","params":{}}`),
				&headers{longLived: true}, noMessages)
			errs <- err
		}()
		rs.read(t)
		require.ErrorIs(t, <-errs, context.DeadlineExceeded)
	})
}
