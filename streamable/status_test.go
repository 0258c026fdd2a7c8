package streamable

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// TestHTTPStatus is the status table: every code the core answers with, and the errors of
// admission and of capacity, taken from real core replies.
func TestHTTPStatus(t *testing.T) {
	core := newCore(t)
	answer := func(core *fastmcp.Server, msg string) *fastmcp.Error { // the error core answers msg with
		t.Helper()
		var m decode.Message
		if err := core.Decoder().Decode(&m, []byte(msg)); err != nil {
			return fastmcp.AppendDecodeError(nil, &m, err).Err
		}
		r := core.Handle(context.Background(), &m, discardSink{}, nil)
		require.NotNil(t, r.Err, "%s answered %s", msg, r.Body)
		return r.Err
	}
	handled := func(msg string) *fastmcp.Error { return answer(core, msg) }
	listen := `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{` + meta + `,"notifications":{"toolsListChanged":true}}}`
	full, err := fastmcp.NewServer(fastmcp.Implementation{Name: "test", Version: "1.0.0"}, &fastmcp.Config{MaxSubscriptionBytes: 1})
	require.NoError(t, err)
	closing := newCore(t)
	closing.CloseSubscriptions()
	tests := []struct {
		name      string
		err       *fastmcp.Error
		admission bool
		status    int
	}{
		{"parse error", fastmcp.ErrParse, false, http.StatusBadRequest},
		{"invalid request", fastmcp.ErrInvalidRequest, false, http.StatusBadRequest},
		{"method not found", fastmcp.ErrMethodNotFound, false, http.StatusNotFound},
		{"invalid params", fastmcp.ErrInvalidParams, false, http.StatusOK},
		{"internal error", fastmcp.ErrInternal, false, http.StatusOK},
		{"header mismatch", fastmcp.ErrHeaderMismatch, false, http.StatusBadRequest},
		{"missing capability", fastmcp.ErrMissingCapability, false, http.StatusBadRequest},
		{"unsupported version", fastmcp.ErrUnsupportedVersion, false, http.StatusBadRequest},
		{"access denied", fastmcp.NewError(fastmcp.CodeAccessDenied, "Access denied", nil), false, http.StatusOK},
		{"a handler's own code", fastmcp.NewError(-32001, "Custom", nil), false, http.StatusOK},

		{"unknown tool", handled(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope",` + meta + `}}`), false, http.StatusOK},
		{"unknown method", handled(`{"jsonrpc":"2.0","id":1,"method":"nope/nope","params":{` + meta + `}}`), false, http.StatusNotFound},
		{"missing _meta", handled(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`), true, http.StatusBadRequest},
		{"invalid _meta", handled(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"bad key!":1}}}`), true, http.StatusBadRequest},
		{"unsupported version", handled(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1999-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`), true, http.StatusBadRequest},
		{"params not an object (decode)", handled(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[]}`), true, http.StatusBadRequest},
		{"not JSON (decode)", handled(`{"jsonrpc":`), true, http.StatusBadRequest},
		{"initialize", handled(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`), false, http.StatusNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.admission, tc.err.Admission(), "admission of %v", tc.err)
			assert.False(t, tc.err.Unavailable(), "%v", tc.err)
			assert.Equal(t, tc.status, HTTPStatus(tc.err), "%v", tc.err)
		})
	}
	for name, e := range map[string]*fastmcp.Error{
		"subscription capacity": answer(full, listen),
		"shutting down":         answer(closing, listen),
	} {
		t.Run(name, func(t *testing.T) {
			assert.True(t, e.Unavailable(), "%v", e)
			assert.Equal(t, http.StatusServiceUnavailable, HTTPStatus(e), "%v", e)
		})
	}
}

// Every refusal the core words for all transports has its HTTP form, with the core's code and
// message and the status the package doc gives.
func TestCoreRefusalsStatus(t *testing.T) {
	want := map[*fastmcp.Error]int{
		fastmcp.ErrOverloaded:           http.StatusServiceUnavailable,
		fastmcp.ErrExecutorUnavailable:  http.StatusServiceUnavailable,
		fastmcp.ErrSubscriptionCapacity: http.StatusServiceUnavailable,
		fastmcp.ErrShuttingDown:         http.StatusServiceUnavailable,
		fastmcp.ErrRequestTimedOut:      http.StatusGatewayTimeout,
		fastmcp.ErrInternal:             http.StatusInternalServerError,
	}
	require.Len(t, refusals, len(want))
	for e, status := range want {
		h := refusals[e]
		require.NotNil(t, h, e.Message)
		assert.Equal(t, status, h.status, e.Message)
		assert.Equal(t, e.Code, h.code, e.Message)
		assert.Equal(t, e.Message, h.message)
	}
}
