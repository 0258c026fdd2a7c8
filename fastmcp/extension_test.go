package fastmcp

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/internal/wireschema"
)

const (
	toyID   = "example.com/toy"
	metaToy = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"example.com/toy":{}}}}`
)

// toyServer has a tool "t" ({n: integer}) and the toy extension: toy/echo (named by key)
// echoes params.key; tools/call of "t" is taken over when the request declares the
// extension, answered {"resultType":"task","n":…}; listen accepts notifications.things.
type toy struct {
	s       *Server
	started atomic.Int32
	events  chan ListenEvent
	stopped chan struct{}
}

func newToy(t *testing.T) *toy {
	x := &toy{s: newTestServer(t, nil), events: make(chan ListenEvent, 1), stopped: make(chan struct{})}
	type args struct {
		N int `json:"n"`
	}
	AddTool(x.s, Tool{Name: "t", Description: "a tool"}, func(_ context.Context, _ *Request, in args) (ToolResult, error) {
		return ToolResult{Text: "sync"}, nil
	})
	x.s.AddExtension(Extension{
		ID: toyID,
		Methods: map[string]ExtensionMethod{"toy/echo": {NamedBy: "key", Serve: func(_ context.Context, r *Request) (json.RawMessage, error) {
			return json.RawMessage(`{"resultType":"complete","echo":` + string(decode.Lookup(r.Params(), "key").Raw()) + `}`), nil
		}}},
		ToolCall: ToolCallHook{
			Take: func(_ context.Context, r *Request, tool string) (bool, error) { return r.DeclaresExtension(toyID), nil },
			Start: func(_ context.Context, _ *Request, _ string, args json.RawMessage) (json.RawMessage, error) {
				x.started.Add(1)
				return json.RawMessage(`{"resultType":"task","n":` + string(decode.Lookup(args, "n").Raw()) + `}`), nil
			},
		},
		Listen: func(_ context.Context, r *Request, filter json.RawMessage) (*ListenTap, error) {
			if !decode.Lookup(filter, "things").Present() {
				return nil, nil
			}
			if !r.DeclaresExtension(toyID) {
				return nil, MissingExtension(toyID)
			}
			return &ListenTap{Ack: []byte(`"things":["a"]`), Events: x.events, Stop: func() { close(x.stopped) }}, nil
		},
	})
	return x
}

func TestExtensionAdvertisedAndGated(t *testing.T) {
	x := newToy(t)
	discover := dispatch(t, x.s, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+meta+`}}`)
	wireschema.RequireValid(t, "DiscoverResultResponse", []byte(discover))
	assert.Contains(t, discover, `"capabilities":{"logging":{},"tools":{"listChanged":true},"extensions":{"example.com/toy":{}}}`)

	refused := dispatch(t, x.s, `{"jsonrpc":"2.0","id":2,"method":"toy/echo","params":{"key":"k",`+meta+`}}`)
	wireschema.RequireValid(t, "MissingRequiredClientCapabilityError", []byte(refused))
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"error":{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"extensions":{"example.com/toy":{}}}}}}`, refused)
	assert.True(t, MissingExtension(toyID).Admission(), "HTTP 400")

	echoed := dispatch(t, x.s, `{"jsonrpc":"2.0","id":3,"method":"toy/echo","params":{"key":"k",`+metaToy+`}}`)
	wireschema.RequireValid(t, "JSONRPCResultResponse", []byte(echoed))
	assert.Equal(t, `{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","echo":"k",`+serverInfoMeta+`}}`, echoed)

	noMeta := dispatch(t, x.s, `{"jsonrpc":"2.0","id":4,"method":"toy/echo","params":{"key":"k"}}`)
	assert.Contains(t, noMeta, `"code":-32602`, "the request _meta is checked first")

	assert.Equal(t, "key", x.s.namedBy("toy/echo"))
	assert.Equal(t, "name", x.s.namedBy(MethodToolsCall))
	assert.Empty(t, x.s.namedBy("toy/unknown"))
}

// The takeover runs after validation: invalid arguments are the usual isError result and
// reach no Start; an undeclaring request is served by the core.
func TestExtensionTakesToolCall(t *testing.T) {
	x := newToy(t)
	taken := dispatch(t, x.s, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"n":5},`+metaToy+`}}`)
	wireschema.RequireValid(t, "JSONRPCResultResponse", []byte(taken))
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","n":5,`+serverInfoMeta+`}}`, taken)

	invalid := dispatch(t, x.s, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{"n":"x"},`+metaToy+`}}`)
	wireschema.RequireValid(t, "CallToolResultResponse", []byte(invalid))
	assert.Contains(t, invalid, `"isError":true`)
	assert.Equal(t, int32(1), x.started.Load())

	sync := dispatch(t, x.s, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","arguments":{"n":1},`+meta+`}}`)
	assert.Equal(t, `{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","content":[{"type":"text","text":"sync"}],`+serverInfoMeta+`}}`, sync)
}

// The initialize-era dialects never see an extension: not advertised, not routed, no
// takeover.
func TestExtensionNotInLegacy(t *testing.T) {
	x := newToy(t)
	c := &ConnState{Dialect: Legacy20251125, LogLevel: x.s.legacyLogLevel(), Capabilities: json.RawMessage(`{"extensions":{"example.com/toy":{}}}`)}
	serve := func(msg string) string {
		var m decode.Message
		require.NoError(t, x.s.decoder.Decode(&m, []byte(msg)))
		return string(x.s.testHandleLegacy(context.Background(), &m, c, nil, nil).Body)
	}
	init := serve(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"extensions":{"example.com/toy":{}}},"clientInfo":{"name":"c","version":"1"}}}`)
	assert.NotContains(t, init, "example.com/toy")
	assert.Contains(t, serve(`{"jsonrpc":"2.0","id":2,"method":"toy/echo","params":{"key":"k"}}`), `"code":-32601`)
	assert.Contains(t, serve(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","arguments":{"n":1}}}`), `"text":"sync"`)
	assert.Zero(t, x.started.Load())
}

// A listen tap adds its members to the acknowledgement and its events to the stream, with
// the subscriptionId; Stop runs when the stream ends.
func TestExtensionListenTap(t *testing.T) {
	x := newToy(t)
	refused := x.s.Dispatch(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"things":["a"]},`+meta+`}}`), &recordingSink{})
	wireschema.RequireValid(t, "MissingRequiredClientCapabilityError", refused)

	sink := &recordingSink{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan []byte)
	go func() {
		done <- x.s.Dispatch(ctx, []byte(`{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"things":["a"]},`+metaToy+`}}`), sink)
	}()
	x.events <- ListenEvent{Method: "notifications/things", Params: json.RawMessage(`{"thing":"a"}`)}
	x.events <- ListenEvent{Method: "notifications/things", Params: json.RawMessage(`{}`)} // the first was written
	cancel()
	assert.Nil(t, <-done)
	<-x.stopped
	msgs := sink.messages()
	require.GreaterOrEqual(t, len(msgs), 2)
	wireschema.RequireValid(t, "SubscriptionsAcknowledgedNotification", []byte(msgs[0]))
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L"},"notifications":{"toolsListChanged":true,"things":["a"]}}}`, msgs[0])
	wireschema.RequireValid(t, "JSONRPCNotification", []byte(msgs[1]))
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/things","params":{"thing":"a","_meta":{"io.modelcontextprotocol/subscriptionId":"L"}}}`, msgs[1])
}

func TestAddExtensionMistakesPanic(t *testing.T) {
	s := newTestServer(t, nil)
	noop := ExtensionMethod{Serve: func(context.Context, *Request) (json.RawMessage, error) { return nil, nil }}
	s.AddExtension(Extension{ID: "example.com/a", Methods: map[string]ExtensionMethod{"a/x": noop}})
	for name, x := range map[string]Extension{
		"no prefix":       {ID: "tasks"},
		"duplicate id":    {ID: "example.com/a"},
		"core method":     {ID: "example.com/b", Methods: map[string]ExtensionMethod{MethodToolsList: noop}},
		"another's":       {ID: "example.com/c", Methods: map[string]ExtensionMethod{"a/x": noop}},
		"no Serve":        {ID: "example.com/d", Methods: map[string]ExtensionMethod{"d/x": {}}},
		"half a hook":     {ID: "example.com/e", ToolCall: ToolCallHook{Take: func(context.Context, *Request, string) (bool, error) { return false, nil }}},
		"settings object": {ID: "example.com/f", Settings: json.RawMessage(`[]`)},
	} {
		assert.Panics(t, func() { s.AddExtension(x) }, name)
	}
}

// RunTool serves deferred work: the result object, the handler's InputRequired (checked
// against the stored client capabilities), or the error.
func TestRunTool(t *testing.T) {
	s := newTestServer(t, nil)
	s.AddRawTool(Tool{Name: "r", Description: "runs", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, r *Request, args json.RawMessage) (ToolResult, error) {
			switch decode.Lookup(args, "do").String() {
			case "ask":
				if r.HasInputResponse("k") {
					return ToolResult{Text: "answered"}, nil
				}
				return ToolResult{}, &InputRequired{Requests: map[string]InputRequest{"k": ElicitForm("?", json.RawMessage(`{"type":"object"}`))}}
			case "fail":
				return ToolResult{}, NewError(-32000, "no", nil)
			case "panic":
				panic("bug")
			}
			return ToolResult{Text: "ok"}, nil
		})
	withElicit := json.RawMessage(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`)
	none := json.RawMessage(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`)
	ctx := context.Background()

	out := s.RunTool(ctx, ToolRun{Tool: "r", Arguments: json.RawMessage(`{}`), Meta: none})
	assert.Equal(t, `{"resultType":"complete","content":[{"type":"text","text":"ok"}],`+serverInfoMeta+`}`, string(out.Result))
	wireschema.RequireValid(t, "CallToolResult", out.Result)

	out = s.RunTool(ctx, ToolRun{Tool: "r", Arguments: json.RawMessage(`{"do":"ask"}`), Meta: withElicit})
	require.NotNil(t, out.Input)
	assert.Contains(t, out.Input.Requests, "k")
	out = s.RunTool(ctx, ToolRun{Tool: "r", Arguments: json.RawMessage(`{"do":"ask"}`), Meta: withElicit, InputResponses: json.RawMessage(`{"k":{"action":"accept","content":{}}}`)})
	assert.Contains(t, string(out.Result), `"answered"`)
	out = s.RunTool(ctx, ToolRun{Tool: "r", Arguments: json.RawMessage(`{"do":"ask"}`), Meta: none})
	require.NotNil(t, out.Err)
	assert.Equal(t, CodeMissingCapability, out.Err.Code, "an input request the stored capabilities cannot serve")

	out = s.RunTool(ctx, ToolRun{Tool: "r", Arguments: json.RawMessage(`{"do":"fail"}`), Meta: none})
	assert.Equal(t, &Error{Code: -32000, Message: "no"}, out.Err)
	out = s.RunTool(ctx, ToolRun{Tool: "r", Arguments: json.RawMessage(`{"do":"panic"}`), Meta: none})
	assert.Equal(t, errToolPanicked, out.Err)
	out = s.RunTool(ctx, ToolRun{Tool: "gone", Meta: none})
	assert.Equal(t, CodeInvalidParams, out.Err.Code)
}

// An extension's result may carry _meta members of its own (a gateway passes its backend's
// on): they are kept, and the server's serverInfo is the only one, in place of any the
// result named.
func TestExtensionResultKeepsItsMeta(t *testing.T) {
	s := newTestServer(t, nil)
	results := map[string]string{
		"own":    `{"resultType":"complete", "x" : 1 ,"_meta":{"vendor.example/k":"v","io.modelcontextprotocol/serverInfo":{"name":"backend","version":"9"}}}`,
		"only":   `{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"backend","version":"9"}}}`,
		"scalar": `{"resultType":"complete","_meta":3}`,
	}
	s.AddExtension(Extension{ID: toyID, Methods: map[string]ExtensionMethod{"toy/result": {NamedBy: "key",
		Serve: func(_ context.Context, r *Request) (json.RawMessage, error) {
			return json.RawMessage(results[decode.Lookup(r.Params(), "key").String()]), nil
		}}}})
	call := func(key string) string {
		out := dispatch(t, s, `{"jsonrpc":"2.0","id":1,"method":"toy/result","params":{"key":"`+key+`",`+metaToy+`}}`)
		wireschema.RequireValid(t, "JSONRPCResultResponse", []byte(out))
		return out
	}
	server := serverInfoMeta[len(`"_meta":{`) : len(serverInfoMeta)-1]
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","x":1,"_meta":{"vendor.example/k":"v",`+server+`}}}`, call("own"))
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete",`+serverInfoMeta+`}}`, call("only"))
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete",`+serverInfoMeta+`}}`, call("scalar"), "a _meta that is not an object is dropped")
}
