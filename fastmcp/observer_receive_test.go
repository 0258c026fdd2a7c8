package fastmcp

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// receivedSink tells when its transport received the request, as the native listener's does.
type receivedSink struct {
	recordingSink
	at time.Time
}

func (s *receivedSink) ReceivedAt() time.Time { return s.at }

// TestObserverStartFromReceiveTimer checks that a sink's receive time is the request's
// Start, so its duration counts from receipt, and that a zero one makes the server read the
// clock.
func TestObserverStartFromReceiveTimer(t *testing.T) {
	o := &recordingObserver{}
	s := newTestServer(t, &Config{Observer: o})
	AddTool(s, Tool{Name: "echo"}, func(_ context.Context, _ *Request, in benchEchoArgs) (ToolResult, error) {
		return ToolResult{Text: in.Text}, nil
	})
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + observedMeta + `},"name":"echo","arguments":{"text":"x"}}}`)
	received := time.Now().Add(-time.Hour)
	assert.Contains(t, string(s.Dispatch(context.Background(), msg, &receivedSink{at: received})), `"result"`)
	before := time.Now()
	assert.Contains(t, string(s.Dispatch(context.Background(), msg, &receivedSink{})), `"result"`)
	require.Len(t, o.starts, 2)
	require.Len(t, o.ends, 2)
	assert.True(t, o.starts[0].Start.Equal(received), "%v", o.starts[0].Start)
	assert.GreaterOrEqual(t, o.ends[0].Duration, time.Hour)
	assert.False(t, o.starts[1].Start.Before(before), "a zero receive time: the server's clock")
	assert.Less(t, o.ends[1].Duration, time.Hour)
	assert.Equal(t, "echo", o.starts[0].Tool)
}
