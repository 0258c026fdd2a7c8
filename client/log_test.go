package client

import (
	"bufio"
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/internal/wireschema"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// logSink is an OnLog hook that hands each message to the test.
func logSink() (func(LogMessage), chan LogMessage) {
	ch := make(chan LogMessage, 16)
	return func(m LogMessage) { ch <- m }, ch
}

// nextLog returns the next message the hook got, failing after waitTimeout.
func nextLog(t *testing.T, ch chan LogMessage) LogMessage {
	t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(waitTimeout):
		t.Fatal("no log message within the wait")
	}
	return LogMessage{}
}

// OnLog gets the server's log messages over every transport and in both eras: test_tool_with_logging
// logs three at info (a modern request asks for them with its logLevel).
func TestOnLog(t *testing.T) {
	hs := startServer(t, streamable.ListenerConfig{})
	for name, open := range map[string]func(t *testing.T, cfg Config) *Client{
		"http modern": func(t *testing.T, cfg Config) *Client { return connect(t, hs.URL(), cfg) },
		"http legacy": func(t *testing.T, cfg Config) *Client { cfg.Era = EraLegacy; return connect(t, hs.URL(), cfg) },
		"stdio modern": func(t *testing.T, cfg Config) *Client {
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
			hook, logs := logSink()
			c := open(t, Config{OnLog: hook})
			_, err := c.CallTool(context.Background(), "test_tool_with_logging", nil)
			require.NoError(t, err)
			for _, want := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
				assert.Equal(t, LogMessage{Level: "info", Logger: "test_tool_with_logging", Data: json.RawMessage(strconv.Quote(want))}, nextLog(t, logs))
			}
			assert.Zero(t, c.LogsDropped())
		})
	}
}

// With OnLog set, a modern request asks for log messages at LogLevel; without, it does not.
func TestOnLogLevelOnTheWire(t *testing.T) {
	reqs := make(chan *fakeReq, 2)
	f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		reqs <- r
		jsonResp(w, `{"jsonrpc":"2.0","id":`+idOf(r.body)+`,"result":{"resultType":"complete","content":[]}}`)
		return true
	})
	c := connect(t, f.url(), Config{Era: EraModern, OnLog: func(LogMessage) {}, LogLevel: "warning", ClientName: "t", ClientVersion: "1"})
	_, err := c.CallTool(context.Background(), "echo", nil)
	require.NoError(t, err)
	r := <-reqs
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},`+
		`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/logLevel":"warning"}}}`, string(r.body))
	wireschema.RequireValid(t, "CallToolRequest", r.body)

	c = connect(t, f.url(), Config{Era: EraModern})
	_, err = c.CallTool(context.Background(), "echo", nil)
	require.NoError(t, err)
	assert.NotContains(t, string((<-reqs).body), "logLevel")
}

// A hook slower than the server never holds the stdio reader: LogBuffer messages wait for
// it, the rest are dropped and counted, and calls go on.
func TestOnLogDropsWhenSlow(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	var got []string
	hook := func(m LogMessage) {
		if len(got) == 0 {
			close(started)
			<-release
		}
		got = append(got, string(m.Data))
	}
	c, rs := legacyRaw(t, Config{OnLog: hook, LogBuffer: 2}, `{"logging":{}}`)
	logLine := func(i int) string {
		return `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":` + strconv.Itoa(i) + `}}`
	}
	rs.write(t, logLine(0))
	<-started // the hook holds message 0
	for i := 1; i <= 5; i++ {
		rs.write(t, logLine(i)) // 1 and 2 wait, 3 to 5 are dropped
	}
	pinged := make(chan error, 1)
	go func() { pinged <- c.Ping(context.Background()) }()
	ping := rs.read(t)
	rs.write(t, `{"jsonrpc":"2.0","id":`+idOf([]byte(ping))+`,"result":{}}`)
	require.NoError(t, <-pinged, "the reader went on while the hook was stuck")
	assert.Equal(t, int64(3), c.LogsDropped())
	close(release)
	require.NoError(t, c.Close()) // waits for the hook
	assert.Equal(t, []string{"0", "1", "2"}, got)
}

// A panicking hook is logged; the next message is delivered and the process lives.
func TestOnLogPanics(t *testing.T) {
	logs := make(chan LogMessage, 1)
	hook := func(m LogMessage) {
		if string(m.Data) == `"boom"` {
			panic("hook bug")
		}
		logs <- m
	}
	_, rs := legacyRaw(t, Config{OnLog: hook}, `{"logging":{}}`)
	rs.write(t, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":"boom"}}`)
	rs.write(t, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"l","data":{"k":1}}}`)
	assert.Equal(t, LogMessage{Level: "info", Logger: "l", Data: json.RawMessage(`{"k":1}`)}, nextLog(t, logs))
}

func TestLogConfigInvalid(t *testing.T) {
	_, err := Config{LogLevel: "loud"}.withDefaults()
	assert.ErrorContains(t, err, `LogLevel "loud" is not a level`)
	_, err = Config{LogBuffer: -1}.withDefaults()
	assert.ErrorContains(t, err, "LogBuffer must be a positive integer")
	_, err = Config{MaxTotalTimeout: -1}.withDefaults()
	assert.ErrorContains(t, err, "MaxTotalTimeout must be positive")
	cfg, err := Config{}.withDefaults()
	require.NoError(t, err)
	assert.Equal(t, DefaultLogBuffer, cfg.LogBuffer)
	assert.Equal(t, "info", cfg.LogLevel)
	assert.Equal(t, DefaultMaxTotalTimeout, cfg.MaxTotalTimeout)
}
