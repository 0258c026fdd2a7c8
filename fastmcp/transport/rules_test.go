package transport_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fastmcp/transport"
)

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// newCore is a server with one tool.
func newCore(t *testing.T, cfg *fastmcp.Config) *fastmcp.Server {
	t.Helper()
	s, err := fastmcp.NewServer(fastmcp.Implementation{Name: "test", Version: "1.0.0"}, cfg)
	require.NoError(t, err)
	fastmcp.AddTool(s, fastmcp.Tool{Name: "echo", Description: "Echo"}, func(context.Context, *fastmcp.Request, struct{}) (fastmcp.ToolResult, error) {
		return fastmcp.ToolResult{Text: "echo"}, nil
	})
	return s
}

type discardSink struct{}

func (discardSink) Notify(context.Context, []byte) error { return nil }

// TestHTTPStatus is the 2026-07-28 status table: every code the core answers with, and the errors of
// admission and of capacity, taken from real core replies.
func TestHTTPStatus(t *testing.T) {
	core := newCore(t, nil)
	answer := func(core *fastmcp.Server, msg string) *fastmcp.Error { // the error core answers msg with
		t.Helper()
		ep := transport.For(core)
		var m decode.Message
		if err := ep.Decoder().Decode(&m, []byte(msg)); err != nil {
			return ep.DecodeError(nil, &m, err).Err
		}
		st := fastmcp.ConnState{Dialect: fastmcp.Modern}
		r := ep.Serve(context.Background(), &st, &m, discardSink{}, nil)
		require.NotNil(t, r.Err, "%s answered %s", msg, r.Body)
		return r.Err
	}
	handled := func(msg string) *fastmcp.Error { return answer(core, msg) }
	listen := `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{` + meta + `,"notifications":{"toolsListChanged":true}}}`
	full := newCore(t, &fastmcp.Config{MaxSubscriptionBytes: 1})
	closing := newCore(t, nil)
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
			assert.Equal(t, tc.status, transport.RulesOf(fastmcp.Modern).HTTPStatus(tc.err), "%v", tc.err)
		})
	}
	for name, e := range map[string]*fastmcp.Error{
		"subscription capacity": answer(full, listen),
		"shutting down":         answer(closing, listen),
	} {
		t.Run(name, func(t *testing.T) {
			assert.True(t, e.Unavailable(), "%v", e)
			assert.Equal(t, http.StatusServiceUnavailable, transport.RulesOf(fastmcp.Modern).HTTPStatus(e), "%v", e)
		})
	}
}

// The initialize-era statuses: an error about a request that reached its dialect is 200,
// the admission errors 400, the capacity refusals 503; a result is 200 in either era.
func TestHTTPStatusInitializeEra(t *testing.T) {
	rules := transport.RulesOf(fastmcp.Legacy20251125)
	assert.Equal(t, http.StatusOK, rules.HTTPStatus(nil))
	assert.Equal(t, http.StatusOK, transport.RulesOf(fastmcp.Modern).HTTPStatus(nil))
	for _, e := range []*fastmcp.Error{fastmcp.ErrMethodNotFound, fastmcp.ErrInvalidParams, fastmcp.ErrInternal, fastmcp.ErrParse} {
		assert.Equal(t, http.StatusOK, rules.HTTPStatus(e), e.Message)
	}
	ep := transport.For(newCore(t, nil))
	var m decode.Message
	require.NoError(t, ep.Decoder().Decode(&m, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)))
	_, refusal := ep.Classify(&m, []byte("1999-01-01"), true)
	require.NotNil(t, refusal)
	assert.Equal(t, http.StatusBadRequest, rules.HTTPStatus(refusal), "the version header's refusal")
}

// The rules of each era: what a transport does around a request, without branching on the
// dialect.
func TestRules(t *testing.T) {
	modern, legacy := transport.RulesOf(fastmcp.Modern), transport.RulesOf(fastmcp.Legacy20250618)
	assert.Same(t, modern, transport.RulesOf(0), "the zero Dialect is 2026-07-28's")
	assert.Same(t, legacy, transport.RulesOf(fastmcp.Legacy20251125))
	listen, initialize, call, setLevel := []byte("subscriptions/listen"), []byte("initialize"), []byte("tools/call"), []byte("logging/setLevel")
	tests := []struct {
		name      string
		got, want bool
	}{
		{"2026-07-28 mirrors headers", modern.MirroredHeaders, true},
		{"2026-07-28 streams listen", modern.Streams(listen), true},
		{"2026-07-28 streams nothing else", modern.Streams(call), false},
		{"2026-07-28 cancels by closing the stream", modern.Cancellable(call), false},
		{"2026-07-28 has no handshake", modern.Handshake(initialize), false},
		{"2026-07-28 keeps no state", modern.ChangesState(setLevel), false},
		{"2026-07-28 asks through input_required", modern.ClientRequests, false},
		{"the initialize era mirrors none", legacy.MirroredHeaders, false},
		{"the initialize era has no listen", legacy.Streams(listen), false},
		{"the initialize era cancels by id", legacy.Cancellable(call), true},
		{"but never initialize", legacy.Cancellable(initialize), false},
		{"initialize is the handshake", legacy.Handshake(initialize), true},
		{"initialize changes the state", legacy.ChangesState(initialize), true},
		{"setLevel changes the state", legacy.ChangesState(setLevel), true},
		{"a call does not", legacy.ChangesState(call), false},
		{"the initialize era asks the client", legacy.ClientRequests, true},
		{"and logs unasked", legacy.LogsUnasked, true},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, tc.got, tc.name)
	}
}
