package client

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A panicking input handler is the call's error (modern: MRTR ends the call) or the error
// the server is answered with (legacy), never the process's end.
func TestHandlerPanicIsAnError(t *testing.T) {
	boom := func(context.Context, json.RawMessage) (json.RawMessage, error) { panic("boom") }
	c, err := coreClient(fixtureServer(t), Config{Elicitation: boom})
	require.NoError(t, err)
	_, err = c.CallTool(context.Background(), "greet_user", map[string]any{})
	assert.ErrorContains(t, err, "the elicitation/create handler panicked: boom")

	legacy := stdioClient(t, pipeServer(t, fixtureServer(t), stdioOptions{}), Config{Era: EraLegacy, Elicitation: boom})
	_, err = legacy.CallTool(context.Background(), "greet_user", map[string]any{})
	var e *Error
	require.ErrorAs(t, err, &e, "the server passes on the error it was answered with")
	assert.Equal(t, int64(-32603), e.Code)
	assert.Contains(t, e.Message, "the elicitation/create handler panicked: boom")
	_, err = legacy.CallTool(context.Background(), "echo", map[string]string{"text": "hi"})
	require.NoError(t, err, "the connection lives on")
}

// A panicking progress callback is logged; the call completes.
func TestProgressCallbackPanic(t *testing.T) {
	c := stdioClient(t, pipeServer(t, fixtureServer(t), stdioOptions{}), Config{Era: EraModern})
	calls := 0
	res, err := c.CallTool(context.Background(), "test_tool_with_progress", nil, WithProgress(func(Progress) {
		calls++
		panic("progress bug")
	}))
	require.NoError(t, err)
	assert.False(t, res.IsError)
	assert.Equal(t, 3, calls)
}
