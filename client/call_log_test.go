package client

import (
	"bufio"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/internal/wireschema"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// logLine is a notifications/message at level with data d (a JSON value).
func logLine(level, d string) string {
	return `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"` + level + `","logger":"l","data":` + d + `}}`
}

// sseResp writes a 200 event stream carrying events (JSON-RPC messages), with a length.
func sseResp(w *bufio.Writer, events ...string) {
	var b strings.Builder
	for _, ev := range events {
		b.WriteString("event: message\ndata: " + ev + "\n\n")
	}
	w.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: " + strconv.Itoa(b.Len()) + "\r\n\r\n" + b.String())
}

// A modern call made WithLog carries its own level, whatever OnLog's, and the messages on its
// stream go to its callback, in order, before it returns.
func TestWithLogModernWire(t *testing.T) {
	reqs := make(chan *fakeReq, 1)
	f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		reqs <- r
		sseResp(w, logLine("debug", `"one"`), logLine("error", `{"n":2}`),
			`{"jsonrpc":"2.0","id":`+idOf(r.body)+`,"result":{"resultType":"complete","content":[]}}`)
		return true
	})
	c := connect(t, f.url(), Config{Era: EraModern, OnLog: func(LogMessage) { t.Error("OnLog got a message of the WithLog call") },
		LogLevel: "warning", ClientName: "t", ClientVersion: "1"})
	var got []LogMessage
	_, err := c.CallTool(context.Background(), "work", nil, WithLog("debug", func(m LogMessage) { got = append(got, m) }))
	require.NoError(t, err)
	r := <-reqs
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"work","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},`+
		`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/logLevel":"debug"}}}`, string(r.body))
	wireschema.RequireValid(t, "CallToolRequest", r.body)
	assert.Equal(t, []LogMessage{
		{Level: "debug", Logger: "l", Data: json.RawMessage(`"one"`)},
		{Level: "error", Logger: "l", Data: json.RawMessage(`{"n":2}`)},
	}, got)
}

// An initialize-era call made WithLog sends no level (logging/setLevel is the session's): the
// messages on its stream below the level asked for are dropped.
func TestWithLogLegacyWire(t *testing.T) {
	reqs := make(chan *fakeReq, 4)
	f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		id := idOf(r.body)
		switch decode.Lookup(r.body, "method").String() {
		case "initialize":
			jsonResp(w, legacyInitResult(id, "2025-11-25"))
		case "tools/call":
			reqs <- r
			sseResp(w, logLine("debug", `"below"`), logLine("warning", `"kept"`), logLine("info", `"at"`),
				`{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[]}}`)
		default:
			w.WriteString("HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")
		}
		return true
	})
	c := connect(t, f.url(), Config{Era: EraLegacy})
	var got []string
	_, err := c.CallTool(context.Background(), "work", nil, WithLog("info", func(m LogMessage) { got = append(got, string(m.Data)) }))
	require.NoError(t, err)
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"work"}}`, string((<-reqs).body))
	assert.Equal(t, []string{`"kept"`, `"at"`}, got)
}

// Against our own server, over every transport and in both eras: test_tool_with_logging's
// three info messages reach the call's callback; asked at warning, none does (the modern
// server sends none, the legacy one's are dropped by the client).
func TestWithLog(t *testing.T) {
	hs := startServer(t, streamable.ListenerConfig{})
	for name, open := range map[string]func(t *testing.T, cfg Config) *Client{
		"http modern": func(t *testing.T, cfg Config) *Client { cfg.Era = EraModern; return connect(t, hs.URL(), cfg) },
		"http legacy": func(t *testing.T, cfg Config) *Client { cfg.Era = EraLegacy; return connect(t, hs.URL(), cfg) },
		"stdio modern": func(t *testing.T, cfg Config) *Client {
			cfg.Era = EraModern
			return stdioClient(t, pipeServer(t, fixtureServer(t), stdioOptions{}), cfg)
		},
		"stdio legacy": func(t *testing.T, cfg Config) *Client {
			cfg.Era = EraLegacy
			return stdioClient(t, pipeServer(t, fixtureServer(t), stdioOptions{}), cfg)
		},
		"in-process": func(t *testing.T, cfg Config) *Client {
			c, err := coreClient(fixtureServer(t), cfg)
			require.NoError(t, err)
			t.Cleanup(func() { _ = c.Close() })
			return c
		},
	} {
		t.Run(name, func(t *testing.T) {
			c := open(t, Config{})
			var got []LogMessage
			_, err := c.CallTool(context.Background(), "test_tool_with_logging", nil, WithLog("", func(m LogMessage) { got = append(got, m) }))
			require.NoError(t, err)
			var want []LogMessage
			for _, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
				want = append(want, LogMessage{Level: "info", Logger: "test_tool_with_logging", Data: json.RawMessage(strconv.Quote(msg))})
			}
			assert.Equal(t, want, got)

			got = nil
			_, err = c.CallTool(context.Background(), "test_tool_with_logging", nil, WithLog("warning", func(m LogMessage) { got = append(got, m) }))
			require.NoError(t, err)
			assert.Empty(t, got)
		})
	}
}

// Over stdio a log message names no call: it goes to the WithLog call only while that call
// is the only one pending, to OnLog otherwise, and to OnLog once the call has returned.
func TestWithLogStdioSoleCall(t *testing.T) {
	for name, tc := range map[string]struct {
		open func(t *testing.T, cfg Config) (*Client, *rawServer)
		call string // the tools/call line the server reads
	}{
		"modern": {
			open: func(t *testing.T, cfg Config) (*Client, *rawServer) {
				tr, rs := newRawServer(t, stdioOptions{})
				cfg.Era = EraModern
				return stdioClient(t, tr, cfg), rs
			},
			call: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"work","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
				`"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"fastmcp-client","version":"0"},"io.modelcontextprotocol/logLevel":"debug"}}}`,
		},
		"legacy": {
			open: func(t *testing.T, cfg Config) (*Client, *rawServer) { return legacyRaw(t, cfg, `{"logging":{}}`) },
			call: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"work"}}`,
		},
	} {
		t.Run(name, func(t *testing.T) {
			hook, hooked := logSink()
			c, rs := tc.open(t, Config{OnLog: hook, LogLevel: "error"})
			ctx := context.Background()
			got := make(chan string, 4)
			done := make(chan error, 1)
			go func() {
				_, err := c.CallTool(ctx, "work", nil, WithLog("debug", func(m LogMessage) { got <- string(m.Data) }))
				done <- err
			}()
			call := rs.read(t)
			assert.Equal(t, tc.call, call)
			rs.write(t, logLine("info", `"alone"`))
			assert.Equal(t, `"alone"`, <-got)

			pinged := make(chan error, 1)
			go func() { pinged <- c.Ping(ctx) }()
			ping := rs.read(t) // now two calls are pending
			rs.write(t, logLine("info", `"shared"`))
			assert.Equal(t, `"shared"`, string(nextLog(t, hooked).Data), "the first message OnLog gets")
			rs.write(t, `{"jsonrpc":"2.0","id":`+idOf([]byte(ping))+`,"result":{}}`)
			require.NoError(t, <-pinged)

			rs.write(t, logLine("info", `"alone again"`))
			rs.write(t, `{"jsonrpc":"2.0","id":`+idOf([]byte(call))+`,"result":{"content":[]}}`)
			require.NoError(t, <-done)
			assert.Equal(t, `"alone again"`, <-got)

			rs.write(t, logLine("info", `"after"`))
			assert.Equal(t, `"after"`, string(nextLog(t, hooked).Data))
			assert.Empty(t, got)
		})
	}
}

// A level that is none of the eight fails the call before anything is sent; a panicking
// callback is logged and the call goes on.
func TestWithLogMisuse(t *testing.T) {
	tr, rs := newRawServer(t, stdioOptions{})
	c := stdioClient(t, tr, Config{Era: EraModern})
	_, err := c.CallTool(context.Background(), "work", nil, WithLog("loud", func(LogMessage) {}))
	require.ErrorContains(t, err, `WithLog level "loud" is not a level`)

	done := make(chan error, 1)
	go func() {
		_, err := c.CallTool(context.Background(), "work", nil, WithLog("info", func(LogMessage) { panic("callback bug") }))
		done <- err
	}()
	call := rs.read(t)
	assert.Contains(t, call, `"id":1,"method":"tools/call"`, "the refused call sent nothing")
	rs.write(t, logLine("info", `"boom"`))
	rs.write(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}`)
	require.NoError(t, <-done)
}
