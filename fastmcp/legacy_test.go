package fastmcp_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fastmcp/transport"
	"github.com/fastmcp-go/fastmcp/internal/wirevector"
)

// Tests of the core (transport.Endpoint.Serve) beyond the wire vectors (legacy_*.txtar): what a transport keeps of
// the client (Reply.State, ConnState), the era classification, Config.Dialects, and the
// rounds of server-to-client requests through the real bridge.

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func newLegacyServer(t *testing.T, cfg *fastmcp.Config) *fastmcp.Server {
	t.Helper()
	var c fastmcp.Config
	if cfg != nil {
		c = *cfg
	}
	c.Logger = slog.New(slog.DiscardHandler)
	s, err := fastmcp.NewServer(fastmcp.Implementation{Name: "legacy", Version: "1.0.0"}, &c)
	require.NoError(t, err)
	return s
}

func decodeMsg(t *testing.T, s *fastmcp.Server, msg string) *decode.Message {
	t.Helper()
	var m decode.Message
	require.NoError(t, transport.For(s).Decoder().Decode(&m, []byte(msg)))
	return &m
}

// serveLegacy serves msg for client c and validates the reply against def in revision rev.
func serveLegacy(t *testing.T, s *fastmcp.Server, c *fastmcp.ConnState, sink fastmcp.Sink, msg, rev, def string) fastmcp.Reply {
	t.Helper()
	r := transport.For(s).Serve(context.Background(), c, decodeMsg(t, s, msg), sink, nil)
	if def != "" {
		require.NotNil(t, r.Body, msg)
		wirevector.ValidateRevision(t, msg, rev, def, r.Body)
	}
	return r
}

func TestClassify(t *testing.T) {
	all := newLegacyServer(t, nil)
	modernOnly := newLegacyServer(t, &fastmcp.Config{Dialects: []fastmcp.Dialect{fastmcp.Modern}})
	legacyOnly := newLegacyServer(t, &fastmcp.Config{Dialects: []fastmcp.Dialect{fastmcp.Legacy20250618}})
	const (
		call     = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`
		callMeta = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x",` + modernMeta + `}}`
		init     = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
		initMeta = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",` + modernMeta + `}}`
		note     = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
		response = `{"jsonrpc":"2.0","id":"fastmcp-x","result":{}}`
	)
	for _, tc := range []struct {
		name    string
		s       *fastmcp.Server
		msg     string
		version string // "-" for none
		want    fastmcp.Dialect
		refused bool
	}{
		{"modern _meta, no header", all, callMeta, "-", fastmcp.Modern, false},
		{"modern _meta beats a legacy header", all, callMeta, "2025-11-25", fastmcp.Modern, false},
		{"modern _meta beats an unknown header", all, callMeta, "1999-01-01", fastmcp.Modern, false},
		{"initialize opens the newest legacy dialect", all, init, "-", fastmcp.Legacy20251125, false},
		{"initialize whatever the header (dns-rebinding probe)", all, init, "2025-06-18", fastmcp.Legacy20251125, false},
		{"initialize with modern _meta is modern", all, initMeta, "-", fastmcp.Modern, false},
		{"legacy header 2025-11-25", all, call, "2025-11-25", fastmcp.Legacy20251125, false},
		{"legacy header 2025-06-18", all, call, "2025-06-18", fastmcp.Legacy20250618, false},
		{"a notification by its header", all, note, "2025-06-18", fastmcp.Legacy20250618, false},
		{"a client's response by its header", all, response, "2025-11-25", fastmcp.Legacy20251125, false},
		{"modern header, no _meta: modern refuses it", all, call, "2026-07-28", fastmcp.Modern, false},
		{"no header, no _meta: modern refuses it", all, call, "-", fastmcp.Modern, false},
		{"an unknown header", all, call, "2024-11-05", 0, true},
		{"an empty header", all, call, "", 0, true},
		{"modern-only: initialize is modern (-32601)", modernOnly, init, "-", fastmcp.Modern, false},
		{"modern-only: a legacy header is refused", modernOnly, call, "2025-11-25", 0, true},
		{"legacy-only: initialize opens 2025-06-18", legacyOnly, init, "-", fastmcp.Legacy20250618, false},
		{"legacy-only: a disabled legacy version is refused", legacyOnly, call, "2025-11-25", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := decodeMsg(t, tc.s, tc.msg)
			d, err := transport.For(tc.s).Classify(m, []byte(tc.version), tc.version != "-")
			assert.Equal(t, tc.want, d)
			if !tc.refused {
				assert.Nil(t, err)
				return
			}
			require.NotNil(t, err)
			assert.Equal(t, fastmcp.CodeUnsupportedVersion, err.Code)
			assert.True(t, err.Admission(), "HTTP 400")
			assert.JSONEq(t, `{"supported":`+string(supportedOf(tc.s))+`,"requested":"`+tc.version+`"}`, string(err.Data))
		})
	}
}

// noteSink records the notifications of a request.
type noteSink struct {
	mu    sync.Mutex
	notes []string
}

func (k *noteSink) Notify(_ context.Context, msg []byte) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.notes = append(k.notes, string(msg))
	return nil
}

func (k *noteSink) messages() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.notes...)
}

// supportedOf returns the supported versions a server names, from its own refusal.
func supportedOf(s *fastmcp.Server) json.RawMessage {
	_, err := transport.For(s).Classify(&decode.Message{}, []byte("x"), true)
	var data struct{ Supported json.RawMessage }
	_ = json.Unmarshal(err.Data, &data)
	return data.Supported
}

// TestSeedCase59 adopts the seed system's acceptance case 59: an unsupported initialize
// proposal negotiates the first legacy version; malformed initialize is -32602; legacy errors
// are not admission refusals (HTTP 200) while 2026-07-28 keeps 400; cursors are refused
// across dialects; a repeated initialize switches the version (stdio keeps Reply.State).
func TestSeedCase59(t *testing.T) {
	s := newLegacyServer(t, &fastmcp.Config{PageSize: 1})
	for _, n := range []string{"a", "b"} {
		s.AddRawTool(fastmcp.Tool{Name: n, InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
				return fastmcp.ToolResult{}, nil
			})
	}
	conn := &fastmcp.ConnState{Dialect: fastmcp.Legacy20251125, LogLevel: fastmcp.LogInfo}

	r := serveLegacy(t, s, conn, nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2099-01-01","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, "2025-11-25", "InitializeResult")
	assert.Contains(t, string(r.Body), `"protocolVersion":"2025-11-25"`)
	require.NotNil(t, r.State)
	assert.Equal(t, fastmcp.Legacy20251125, r.State.Dialect)

	r = serveLegacy(t, s, conn, nil, `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}`, "2025-11-25", "InvalidParamsError")
	assert.False(t, r.Err.Admission(), "a legacy error is a JSON-RPC error in a 200")
	assert.Nil(t, r.State, "a failed initialize changes nothing")

	modern := transport.For(s).Serve(context.Background(), &fastmcp.ConnState{}, decodeMsg(t, s, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`), nil, nil)
	assert.True(t, modern.Err.Admission(), "2026-07-28 refuses a request without _meta with 400")

	r = serveLegacy(t, s, conn, nil, `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`, "2025-11-25", "ListToolsResult")
	var page struct{ Result struct{ NextCursor string } }
	require.NoError(t, json.Unmarshal(r.Body, &page))
	require.NotEmpty(t, page.Result.NextCursor)
	old := &fastmcp.ConnState{Dialect: fastmcp.Legacy20250618, LogLevel: fastmcp.LogInfo}
	r = serveLegacy(t, s, old, nil, `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"cursor":"`+page.Result.NextCursor+`"}}`, "2025-06-18", "InvalidParamsError")
	assert.Equal(t, `{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"Invalid pagination cursor"}}`, string(r.Body))
	modern = transport.For(s).Serve(context.Background(), &fastmcp.ConnState{}, decodeMsg(t, s, `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"cursor":"`+page.Result.NextCursor+`",`+modernMeta+`}}`), nil, nil)
	assert.Equal(t, `{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"Invalid pagination cursor"}}`, string(modern.Body))

	r = serveLegacy(t, s, r2client(t, s, conn), nil, `{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, "2025-06-18", "InitializeResult")
	require.NotNil(t, r.State)
	assert.Equal(t, fastmcp.Legacy20250618, r.State.Dialect, "a repeated initialize switches the version")
}

// r2client returns the client after a logging/setLevel debug on conn.
func r2client(t *testing.T, s *fastmcp.Server, conn *fastmcp.ConnState) *fastmcp.ConnState {
	t.Helper()
	r := serveLegacy(t, s, conn, nil, `{"jsonrpc":"2.0","id":7,"method":"logging/setLevel","params":{"level":"debug"}}`, "2025-11-25", "EmptyResult")
	require.NotNil(t, r.State)
	return r.State
}

// TestLegacyClientState: initialize reports the negotiated dialect, a copy of the declared
// capabilities and the unchanged log level and events; logging/setLevel reports the new level;
// handlers see what the transport keeps (capabilities, version, level); a connection with
// event delivery advertises listChanged and resources.subscribe and records subscriptions.
func TestLegacyClientState(t *testing.T) {
	s := newLegacyServer(t, nil)
	var seen struct {
		caps    string
		capsNil bool
		version string
		dialect fastmcp.Dialect
	}
	s.AddRawTool(fastmcp.Tool{Name: "probe", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
			seen.caps, seen.capsNil, seen.version, seen.dialect = string(r.ClientCapabilities()), r.ClientCapabilities() == nil, r.ProtocolVersion(), r.Dialect()
			for _, l := range []fastmcp.LogLevel{fastmcp.LogDebug, fastmcp.LogInfo} {
				if err := r.Log(ctx, l, "", l.String()); err != nil {
					return fastmcp.ToolResult{}, err
				}
			}
			return fastmcp.ToolResult{Text: "ok"}, nil
		})
	s.AddResource(fastmcp.Resource{URI: "test://r", Name: "r"},
		func(context.Context, *fastmcp.Request, string) ([]fastmcp.ResourceContents, error) {
			return []fastmcp.ResourceContents{{Text: "r"}}, nil
		})
	ev := fastmcp.NewLegacyEvents()
	conn := &fastmcp.ConnState{Dialect: fastmcp.Legacy20251125, LogLevel: transport.For(s).Stateless(0).LogLevel, Events: ev}
	src := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"c","version":"1"}}}`)
	var m decode.Message
	require.NoError(t, transport.For(s).Decoder().Decode(&m, src))
	r := transport.For(s).Serve(context.Background(), conn, &m, nil, nil)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"logging":{},"resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true}},"serverInfo":{"name":"legacy","version":"1.0.0"}}}`, string(r.Body))
	wirevector.ValidateRevision(t, "initialize", "2025-06-18", "InitializeResult", r.Body)
	require.NotNil(t, r.State)
	for i := range src {
		src[i] = 'x' // the transport releases the message: the client state must not alias it
	}
	assert.Equal(t, fastmcp.ConnState{Dialect: fastmcp.Legacy20250618, Capabilities: []byte(`{"roots":{"listChanged":true}}`), LogLevel: fastmcp.LogInfo, Events: ev}, *r.State)
	conn = r.State

	sink := &noteSink{}
	r = serveLegacy(t, s, conn, sink, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"probe"}}`, "2025-06-18", "CallToolResult")
	assert.Nil(t, r.State, "only initialize and logging/setLevel change the client")
	assert.Equal(t, `{"roots":{"listChanged":true}}`, seen.caps)
	assert.Equal(t, "2025-06-18", seen.version)
	assert.Equal(t, fastmcp.Legacy20250618, seen.dialect)
	assert.Equal(t, []string{`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"info"}}`}, sink.messages())

	r = serveLegacy(t, s, conn, nil, `{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"debug"}}`, "2025-06-18", "EmptyResult")
	assert.Equal(t, `{"jsonrpc":"2.0","id":3,"result":{}}`, string(r.Body))
	require.NotNil(t, r.State)
	assert.Equal(t, fastmcp.LogDebug, r.State.LogLevel)
	assert.Equal(t, fastmcp.LogInfo, conn.LogLevel, "the old state is left alone")
	sink = &noteSink{}
	serveLegacy(t, s, r.State, sink, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"probe"}}`, "2025-06-18", "CallToolResult")
	assert.Len(t, sink.messages(), 2, "debug and info at level debug")
	for i, n := range sink.messages() {
		wirevector.ValidateRevision(t, "log "+strconv.Itoa(i), "2025-06-18", "LoggingMessageNotification", []byte(n))
	}

	serveLegacy(t, s, conn, nil, `{"jsonrpc":"2.0","id":5,"method":"resources/subscribe","params":{"uri":"test://r"}}`, "2025-06-18", "EmptyResult")
	assert.True(t, ev.Subscribe("test://r"), "subscribed already: one subscription")
	serveLegacy(t, s, conn, nil, `{"jsonrpc":"2.0","id":6,"method":"resources/unsubscribe","params":{"uri":"test://r"}}`, "2025-06-18", "EmptyResult")

	off := &fastmcp.ConnState{Dialect: fastmcp.Legacy20251125, LogLevel: fastmcp.LogOff}
	sink = &noteSink{}
	serveLegacy(t, s, off, sink, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"probe"}}`, "2025-11-25", "CallToolResult")
	assert.Empty(t, sink.messages(), "LogOff sends none")
	assert.True(t, seen.capsNil, "capabilities unknown over stateless HTTP")
}

// TestLegacySubscribeLimit: a connection holds at most MaxResourceSubscriptions URIs.
func TestLegacySubscribeLimit(t *testing.T) {
	s := newLegacyServer(t, nil)
	s.AddResource(fastmcp.Resource{URI: "test://r", Name: "r"},
		func(context.Context, *fastmcp.Request, string) ([]fastmcp.ResourceContents, error) { return nil, nil })
	ev := fastmcp.NewLegacyEvents()
	for i := range fastmcp.MaxResourceSubscriptions {
		require.True(t, ev.Subscribe("test://u/"+strconv.Itoa(i)))
	}
	c := &fastmcp.ConnState{Dialect: fastmcp.Legacy20251125, Events: ev}
	r := serveLegacy(t, s, c, nil, `{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"test://one-more"}}`, "2025-11-25", "InvalidParamsError")
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: at most 1000 resource subscriptions per connection"}}`, string(r.Body))
}

func TestConfigDialects(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  fastmcp.Config
		ok   bool
	}{
		{"nil is every dialect", fastmcp.Config{}, true},
		{"modern only", fastmcp.Config{Dialects: []fastmcp.Dialect{fastmcp.Modern}}, true},
		{"legacy only", fastmcp.Config{Dialects: []fastmcp.Dialect{fastmcp.Legacy20250618, fastmcp.Legacy20251125}}, true},
		{"a repeat is harmless", fastmcp.Config{Dialects: []fastmcp.Dialect{fastmcp.Modern, fastmcp.Modern}}, true},
		{"empty", fastmcp.Config{Dialects: []fastmcp.Dialect{}}, false},
		{"the zero dialect", fastmcp.Config{Dialects: []fastmcp.Dialect{0}}, false},
		{"an unknown dialect", fastmcp.Config{Dialects: []fastmcp.Dialect{9}}, false},
		{"an unknown log level", fastmcp.Config{LegacyLogLevel: "verbose"}, false},
		{"log level off", fastmcp.Config{LegacyLogLevel: "off"}, true},
		{"negative rounds", fastmcp.Config{MaxInputRounds: -1}, false},
		{"negative outstanding", fastmcp.Config{MaxOutstandingRequests: -1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fastmcp.NewServer(fastmcp.Implementation{Name: "n", Version: "1"}, &tc.cfg)
			if tc.ok {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, fastmcp.ErrInvalidConfig)
			}
		})
	}
}

// TestDialectsRefusals: without 2026-07-28 a modern request is -32022 naming the legacy
// versions (HTTP 400); without the legacy dialects initialize is -32601 naming 2026-07-28.
func TestDialectsRefusals(t *testing.T) {
	legacyOnly := newLegacyServer(t, &fastmcp.Config{Dialects: []fastmcp.Dialect{fastmcp.Legacy20251125, fastmcp.Legacy20250618}})
	reply := legacyOnly.Dispatch(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+modernMeta+`}}`), nil)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2025-11-25","2025-06-18"],"requested":"2026-07-28"}}}`, string(reply))
	wirevector.Validate(t, "discover", "UnsupportedProtocolVersionError", reply)

	modernOnly := newLegacyServer(t, &fastmcp.Config{Dialects: []fastmcp.Dialect{fastmcp.Modern}})
	init := decodeMsg(t, modernOnly, `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	d, err := transport.For(modernOnly).Classify(init, nil, false)
	require.Nil(t, err)
	r := transport.For(modernOnly).Serve(context.Background(), &fastmcp.ConnState{}, init, nil, nil)
	assert.Equal(t, fastmcp.Modern, d)
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found","data":{"supported":["2026-07-28"],"requested":"2025-11-25"}}}`, string(r.Body))

	only0618 := newLegacyServer(t, &fastmcp.Config{Dialects: []fastmcp.Dialect{fastmcp.Modern, fastmcp.Legacy20250618}})
	r = serveLegacy(t, only0618, &fastmcp.ConnState{Dialect: fastmcp.Legacy20250618}, nil,
		`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, "2025-06-18", "InitializeResult")
	assert.Contains(t, string(r.Body), `"protocolVersion":"2025-06-18"`, "a disabled version gets the newest enabled counter-offer")
}

// TestLegacyNotForHandle: notifications and the client's responses are the transport's;
// the core (transport.Endpoint.Serve) answers none.
func TestLegacyNotForHandle(t *testing.T) {
	s := newLegacyServer(t, nil)
	c := &fastmcp.ConnState{Dialect: fastmcp.Legacy20251125}
	for _, msg := range []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":"fastmcp-unknown","result":{}}`,
	} {
		r := transport.For(s).Serve(context.Background(), c, decodeMsg(t, s, msg), nil, nil)
		assert.Equal(t, fastmcp.Reply{}, r, msg)
	}
}
