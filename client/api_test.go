package client

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fixtures"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// handlers answers every kind of input request with fixed values.
func handlers() Config {
	return Config{
		Elicitation: func(_ context.Context, params json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{"action":"accept","content":{"name":"Ada","username":"ada","email":"ada@example.com","ok":true}}`), nil
		},
		Sampling: func(_ context.Context, params json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"test"}`), nil
		},
		Roots: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{"roots":[{"uri":"file:///a","name":"a"}]}`), nil
		},
	}
}

func TestModernAPI(t *testing.T) {
	s := startServer(t, streamable.ListenerConfig{})
	c := connect(t, s.URL(), handlers())
	ctx := context.Background()

	d, err := c.Discover(ctx)
	require.NoError(t, err)
	assert.Contains(t, d.SupportedVersions, "2026-07-28")
	assert.JSONEq(t, `{"name":"client-test","version":"1.0.0"}`, string(d.ServerInfo))

	tools, err := c.ListTools(ctx)
	require.NoError(t, err)
	names := map[string]bool{}
	for _, tl := range tools {
		names[tl.Name] = true
	}
	assert.True(t, names["echo"] && names["header_echo"] && names["test_simple_text"], "tools: %v", names)

	res, err := c.ListResources(ctx)
	require.NoError(t, err)
	assert.NotEmpty(t, res)
	tpl, err := c.ListResourceTemplates(ctx)
	require.NoError(t, err)
	assert.NotEmpty(t, tpl)
	prompts, err := c.ListPrompts(ctx)
	require.NoError(t, err)
	assert.NotEmpty(t, prompts)

	read, err := c.ReadResource(ctx, "test://static-text")
	require.NoError(t, err)
	assert.Contains(t, string(read), `"uri":"test://static-text"`)

	p, err := c.GetPrompt(ctx, "test_simple_prompt", nil)
	require.NoError(t, err)
	assert.Contains(t, string(p), `"messages"`)

	comp, err := c.Complete(ctx, CompletionRef{Type: "ref/prompt", Name: "test_prompt_with_arguments"}, "arg1", "test")
	require.NoError(t, err)
	assert.Equal(t, []string{"test", "testValue1", "testValue2"}, comp.Values)

	// ping is gone in 2026-07-28: the server's -32601 is the answer.
	var e *Error
	require.ErrorAs(t, c.Ping(ctx), &e)
	assert.Equal(t, int64(CodeMethodNotFound), e.Code)

	// An unknown tool is a JSON-RPC error, typed.
	_, err = c.CallTool(ctx, "no_such_tool", nil)
	require.ErrorAs(t, err, &e)
	assert.Equal(t, int64(CodeInvalidParams), e.Code)

	// A tool error is a result.
	r, err := c.CallTool(ctx, "test_error_handling", nil)
	require.NoError(t, err)
	assert.True(t, r.IsError)
}

func TestDiscoverCachedForTTL(t *testing.T) {
	s := startServer(t, streamable.ListenerConfig{})
	c := connect(t, s.URL(), Config{Era: EraModern})
	d1, err := c.Discover(context.Background())
	require.NoError(t, err)
	d2, err := c.Discover(context.Background())
	require.NoError(t, err)
	if d1.TTLMs > 0 {
		assert.Same(t, d1, d2, "a result within its ttlMs is served from the cache")
	} else {
		assert.NotSame(t, d1, d2, "ttlMs 0 is immediately stale")
	}
}

func TestTypedCall(t *testing.T) {
	s := startServer(t, streamable.ListenerConfig{})
	c := connect(t, s.URL(), Config{Era: EraModern})
	st, err := Call[struct{}, fixtures.SleepStats](context.Background(), c, "sleep_stats", struct{}{})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, st.Started, int64(0))

	_, err = Call[struct{}, string](context.Background(), c, "test_error_handling", struct{}{})
	var te *ToolError
	require.ErrorAs(t, err, &te)
	assert.Contains(t, te.Text, "intentionally")
}

func TestProgress(t *testing.T) {
	s := startServer(t, streamable.ListenerConfig{})
	for _, era := range []Era{EraModern, EraLegacy} {
		t.Run(era.String(), func(t *testing.T) {
			c := connect(t, s.URL(), Config{Era: era})
			var got []Progress
			r, err := c.CallTool(context.Background(), "test_tool_with_progress", nil, WithProgress(func(p Progress) { got = append(got, p) }))
			require.NoError(t, err)
			assert.JSONEq(t, `[{"type":"text","text":"Progress complete"}]`, string(r.Content))
			require.Len(t, got, 3)
			assert.Equal(t, []float64{0, 50, 100}, []float64{got[0].Progress, got[1].Progress, got[2].Progress})
			assert.Equal(t, float64(100), got[2].Total)
		})
	}
}

func TestMRTRAutoFulfilment(t *testing.T) {
	s := startServer(t, streamable.ListenerConfig{})
	c := connect(t, s.URL(), handlers())
	ctx := context.Background()
	for tool, want := range map[string]string{
		"test_input_required_result_elicitation":     "Hello, Ada!",
		"test_input_required_result_sampling":        "Sampling result: Paris",
		"test_input_required_result_list_roots":      "Found 1 root(s): file:///a",
		"test_input_required_result_request_state":   "state-ok: requestState validated",
		"test_input_required_result_multi_round":     "",
		"test_input_required_result_multiple_inputs": "Name: Ada",
	} {
		r, err := c.CallTool(ctx, tool, nil)
		require.NoError(t, err, tool)
		require.False(t, r.IsError, "%s: %s", tool, r.Content)
		assert.Contains(t, firstText(r.Content), want, tool)
	}
}

func TestMRTRWithoutHandler(t *testing.T) {
	s := startServer(t, streamable.ListenerConfig{})
	c := connect(t, s.URL(), Config{Era: EraModern})
	_, err := c.CallTool(context.Background(), "test_input_required_result_elicitation", nil)
	require.Error(t, err)
	// The server asks only for what the request declared: with no handlers it may refuse,
	// or ask anyway and the client has no handler.
	var e *Error
	assert.True(t, errors.Is(err, ErrNoHandler) || errors.As(err, &e), "%v", err)
}

func TestMcpParamHeader(t *testing.T) {
	s := startServer(t, streamable.ListenerConfig{})
	c := connect(t, s.URL(), Config{Era: EraModern})
	ctx := context.Background()
	// Without a tools/list the client does not know the annotation: the server's -32020
	// makes it re-list and retry once.
	r, err := c.CallTool(ctx, "header_echo", map[string]string{"region": "Hello, 世界"})
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"text","text":"region=Hello, 世界"}]`, string(r.Content))
	r, err = c.CallTool(ctx, "header_echo", map[string]string{"region": "us-west1"})
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"text","text":"region=us-west1"}]`, string(r.Content))
}

func TestLegacyHTTP(t *testing.T) {
	s := startServer(t, streamable.ListenerConfig{})
	c := connect(t, s.URL(), func() Config { cfg := handlers(); cfg.Era = EraLegacy; return cfg }())
	ctx := context.Background()
	assert.False(t, c.Modern())
	assert.Equal(t, "2025-11-25", c.ProtocolVersion())

	d, err := c.Discover(ctx)
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"client-test","version":"1.0.0"}`, string(d.ServerInfo))
	require.NoError(t, c.Ping(ctx))

	tools, err := c.ListTools(ctx)
	require.NoError(t, err)
	assert.NotEmpty(t, tools)
	r, err := c.CallTool(ctx, "echo", map[string]string{"text": "hi"})
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"text","text":"hi"}]`, string(r.Content))

	// The server's elicitation/create arrives on the call's event stream; the answer goes
	// back in a separate POST.
	r, err = c.CallTool(ctx, "test_elicitation", map[string]string{"message": "who?"})
	require.NoError(t, err)
	require.False(t, r.IsError, "%s", r.Content)
	assert.Contains(t, firstText(r.Content), "ada@example.com")

	r, err = c.CallTool(ctx, "test_sampling", map[string]string{"prompt": "capital?"})
	require.NoError(t, err)
	assert.Contains(t, firstText(r.Content), "LLM response: Paris")
}

func TestAutoEra(t *testing.T) {
	s := startServer(t, streamable.ListenerConfig{})
	c := connect(t, s.URL(), Config{Era: EraAuto})
	assert.True(t, c.Modern(), "a dual-era server answers server/discover")
	r, err := c.CallTool(context.Background(), "echo", map[string]string{"text": "x"})
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"text","text":"x"}]`, string(r.Content))
}

// Against a server that serves only the initialize era, auto falls back to the handshake.
func TestAutoEraFallsBackToLegacy(t *testing.T) {
	s := startServerWith(t, &fastmcp.Config{Dialects: []fastmcp.Dialect{fastmcp.Legacy20251125}}, streamable.ListenerConfig{})
	c := connect(t, s.URL(), Config{Era: EraAuto})
	assert.False(t, c.Modern())
	assert.Equal(t, "2025-11-25", c.ProtocolVersion())
	r, err := c.CallTool(context.Background(), "echo", map[string]string{"text": "x"})
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"text","text":"x"}]`, string(r.Content))

	// Pinned modern, the same server's refusal is the call's typed error.
	m := connect(t, s.URL(), Config{Era: EraModern})
	_, err = m.CallTool(context.Background(), "echo", map[string]string{"text": "x"})
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, int64(CodeUnsupportedVersion), e.Code)
}
