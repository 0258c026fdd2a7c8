package stdio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fastmcp/transport"
	"github.com/fastmcp-go/fastmcp/pool"
)

// serveServer returns a run function for startClient that calls Serve with s.
func serveServer(s *fastmcp.Server) func(Config) error {
	return func(cfg Config) error { return Serve(context.Background(), s, cfg) }
}

// byID decodes output lines and indexes them by id literal; ids must be unique.
func byID(tb testing.TB, out []string) map[string]message {
	tb.Helper()
	m := map[string]message{}
	for _, l := range out {
		msg := decodeLine(tb, l)
		_, dup := m[string(msg.ID)]
		require.False(tb, dup, "two lines with id %s: %q", msg.ID, out)
		m[string(msg.ID)] = msg
	}
	return m
}

// Case 32: empty input, many times: a clean return and no output.
func TestEmptyInput(t *testing.T) {
	s, _ := newTestServer(t)
	for range 100 {
		require.Empty(t, serveAll(t, s, "", Config{}))
	}
	require.Empty(t, serveAll(t, s, "\ufeff\n\r\n  \t\n", Config{}), "a BOM and blank lines")
}

// Case 33: CRLF framing, a byte order mark and blank lines.
func TestCRLF(t *testing.T) {
	s, _ := newTestServer(t)
	in := "\ufeff" + call("1", "echo", `{"text":"a"}`) + "\r\n\r\n   \r\n" + call("2", "echo", `{"text":"b"}`) + "\r\n"
	got := byID(t, serveAll(t, s, in, Config{}))
	require.Len(t, got, 2)
	assert.Equal(t, "a", got["1"].text(t))
	assert.Equal(t, "b", got["2"].text(t))
}

// Case 34: a malformed line and a batch are answered with a null id and do not affect the
// lines after them.
func TestMalformedLines(t *testing.T) {
	s, _ := newTestServer(t)
	in := "{not-json\n[]\n" + `[{"jsonrpc":"2.0","id":9,"method":"tools/list"}]` + "\n" + call("1", "echo", `{"text":"after"}`) + "\n"
	out := serveAll(t, s, in, Config{})
	require.Len(t, out, 4)
	// The reader answers refusals in input order; the request is answered by a worker later.
	requireError(t, decodeLine(t, out[0]), "null", -32700, "")
	requireError(t, decodeLine(t, out[1]), "null", -32600, "")
	requireError(t, decodeLine(t, out[2]), "null", -32600, "")
	assert.Equal(t, "after", decodeLine(t, out[3]).text(t))
}

// Responses and notifications other than cancellation are not answered.
func TestIgnoredMessages(t *testing.T) {
	s, _ := newTestServer(t)
	in := `{"jsonrpc":"2.0","id":5,"result":{}}` + "\n" +
		`{"jsonrpc":"2.0","id":6,"error":{"code":1,"message":"x"}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":404}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/cancelled"}` + "\n" +
		`{"jsonrpc":"2.0","method":7}` + "\n" +
		`{"jsonrpc":"2.0","id":1}` + "\n"
	out := serveAll(t, s, in, Config{})
	require.Len(t, out, 1, "only the invalid message is answered: %q", out)
	requireError(t, decodeLine(t, out[0]), "1", -32600, "")
}

// Case 35: a slow request does not hold up a fast one behind it.
func TestSlowThenFast(t *testing.T) {
	s, tt := newTestServer(t)
	c := startClient(t, serveServer(s), Config{})
	c.send(call("1", "wait", `{"key":"slow"}`))
	require.Equal(t, "slow", <-tt.started)
	c.send(call("2", "echo", `{"text":"fast"}`))
	m := c.recv()
	require.Equal(t, "2", string(m.ID))
	tt.open("slow")
	m = c.recv()
	require.Equal(t, "1", string(m.ID))
	require.Equal(t, "slow", m.text(t))
	rest, err := c.close()
	require.NoError(t, err)
	require.Empty(t, rest)
}

// Case 36: with one worker and no queue, a second request is refused at once.
func TestCapacityExhausted(t *testing.T) {
	s, tt := newTestServer(t)
	c := startClient(t, serveServer(s), Config{Pool: pool.Config{MaxConcurrency: 1, MaxQueue: pool.NoQueue}})
	c.send(call("1", "wait", `{"key":"a"}`))
	require.Equal(t, "a", <-tt.started)
	c.send(call(`"two"`, "echo", `{"text":"b"}`))
	requireError(t, c.recv(), `"two"`, -32603, "Server execution capacity exhausted")
	tt.open("a")
	require.Equal(t, "1", string(c.recv().ID))
	// Capacity is back once the worker has returned, a moment after its response.
	for i := 0; ; i++ {
		c.send(call(strconv.Itoa(100+i), "echo", `{"text":"c"}`))
		if m := c.recv(); m.Error == nil {
			require.Equal(t, "c", m.text(t))
			break
		}
		require.Less(t, i, 10000)
	}
	rest, err := c.close()
	require.NoError(t, err)
	require.Empty(t, rest)
}

// Case 39: 100 concurrent requests give 100 decodable lines.
func TestConcurrentRequests(t *testing.T) {
	s, _ := newTestServer(t)
	var in strings.Builder
	for i := range 100 {
		fmt.Fprintf(&in, "%s\n", call(strconv.Itoa(i), "echo", `{"text":"n`+strconv.Itoa(i)+` é😀"}`))
	}
	got := byID(t, serveAll(t, s, in.String(), Config{Pool: pool.Config{MaxConcurrency: 8}}))
	require.Len(t, got, 100)
	for i := range 100 {
		assert.Equal(t, "n"+strconv.Itoa(i)+" é😀", got[strconv.Itoa(i)].text(t))
	}
}

// A request whose id is in flight is refused; ids compare by value, so "a" and "\u0061" are
// the same id, while 1 and "1" are not.
func TestDuplicateInFlightID(t *testing.T) {
	s, tt := newTestServer(t)
	c := startClient(t, serveServer(s), Config{})
	c.send(call(`"a"`, "wait", `{"key":"a"}`), call("1", "wait", `{"key":"1"}`))
	<-tt.started
	<-tt.started
	c.send(call(`"\u0061"`, "echo", `{"text":"dup"}`))
	requireError(t, c.recv(), `"\u0061"`, -32600, "Duplicate in-flight request id")
	c.send(call("1", "echo", `{"text":"dup"}`))
	requireError(t, c.recv(), "1", -32600, "Duplicate in-flight request id")
	c.send(call(`"1"`, "echo", `{"text":"string one"}`))
	require.Equal(t, "string one", c.recv().text(t))
	tt.open("a")
	require.Equal(t, `"a"`, string(c.recv().ID))
	c.send(call(`"a"`, "echo", `{"text":"again"}`)) // free once answered
	require.Equal(t, "again", c.recv().text(t))
	tt.open("1")
	require.Equal(t, "1", string(c.recv().ID))
	rest, err := c.close()
	require.NoError(t, err)
	require.Empty(t, rest)
}

// Case 40: cancellation. A cancel whose reason is not a string is ignored; a valid one stops
// the request with no response, frees its id at once, and leaves other requests alone; a
// handler that ignores its cancellation and answers anyway is not heard.
func TestCancellation(t *testing.T) {
	s, tt := newTestServer(t)
	fastmcp.AddTool(s, fastmcp.Tool{Name: "stubborn"}, func(_ context.Context, _ *fastmcp.Request, in keyArgs) (fastmcp.ToolResult, error) {
		tt.started <- in.Key
		<-tt.gate(in.Key) // ignores its context
		tt.ended <- in.Key
		return fastmcp.ToolResult{Text: "late"}, nil
	})
	c := startClient(t, serveServer(s), Config{})

	c.send(call("1", "wait", `{"key":"a"}`), call("2", "wait", `{"key":"b"}`))
	started := []string{<-tt.started, <-tt.started}
	require.ElementsMatch(t, []string{"a", "b"}, started)

	// Ignored: a non-string reason, and ids that are not in flight.
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":5}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"1"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.0}}`)
	tt.open("a")
	m := c.recv()
	require.Equal(t, "1", string(m.ID))
	require.Equal(t, "a", m.text(t))
	require.Equal(t, "a:<nil>", <-tt.ended)

	// A valid cancel ends request 2 at once; its id is reused by the very next line.
	c.send(cancel("2"), call("2", "echo", `{"text":"reused"}`))
	require.Equal(t, "b:context canceled", <-tt.ended)
	m = c.recv()
	require.Equal(t, "2", string(m.ID))
	require.Equal(t, "reused", m.text(t))

	// A handler that ignores its cancellation answers after it: nothing is written.
	c.send(call("3", "stubborn", `{"key":"s"}`))
	require.Equal(t, "s", <-tt.started)
	c.send(cancel("3"), call("3", "echo", `{"text":"three"}`))
	require.Equal(t, "three", c.recv().text(t))
	tt.open("s")
	require.Equal(t, "s", <-tt.ended)

	rest, err := c.close()
	require.NoError(t, err)
	require.Empty(t, rest, "no late response")
}

// A queued request that is cancelled never runs.
func TestCancelQueued(t *testing.T) {
	s, tt := newTestServer(t)
	c := startClient(t, serveServer(s), Config{Pool: pool.Config{MaxConcurrency: 1}})
	c.send(call("1", "wait", `{"key":"a"}`))
	require.Equal(t, "a", <-tt.started)
	c.send(call("2", "wait", `{"key":"never"}`), cancel("2"), call("3", "echo", `{"text":"queued"}`))
	tt.open("a")
	require.Equal(t, "1", string(c.recv().ID))
	require.Equal(t, "queued", c.recv().text(t))
	rest, err := c.close()
	require.NoError(t, err)
	require.Empty(t, rest)
	select {
	case k := <-tt.started:
		t.Fatalf("cancelled queued request ran: %s", k)
	default:
	}
}

// Progress notifications are written one at a time, each in order and before the final
// response (case 43's last check).
func TestProgressBeforeResponse(t *testing.T) {
	s, _ := newTestServer(t)
	var w recordingWriter
	cfg := Config{Input: strings.NewReader(callWithToken("1", "progress", `{"steps":5}`, `"tok"`) + "\n"), Output: &w}
	cfg.Pool = quietPool(cfg.Pool)
	require.NoError(t, Serve(context.Background(), s, cfg))
	writes := w.writes()
	require.Len(t, writes, 6, "one write per line: %q", writes)
	for i, wr := range writes[:5] {
		m := decodeLine(t, strings.TrimSuffix(wr, "\n"))
		require.Equal(t, "notifications/progress", m.Method)
		require.JSONEq(t, fmt.Sprintf(`{"progressToken":"tok","progress":%d,"total":5}`, i+1), string(m.Params))
	}
	require.Equal(t, "done", decodeLine(t, strings.TrimSuffix(writes[5], "\n")).text(t))
}

// Case 37: past RequestTimeout a request is answered with -32603, and the end of input
// waits for its outcome but not for a handler that ignores its cancellation.
func TestRequestTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, tt := newTestServer(t)
		fastmcp.AddTool(s, fastmcp.Tool{Name: "stubborn"}, func(context.Context, *fastmcp.Request, struct{}) (fastmcp.ToolResult, error) {
			<-tt.gate("stubborn") // ignores its context
			return fastmcp.ToolResult{Text: "late"}, nil
		})
		ex := newExecutor(t, pool.Config{})
		defer tt.open("stubborn") // before the executor's cleanup, even on failure
		start := time.Now()
		out := serveAll(t, s, call("1", "wait", `{"key":"t"}`)+"\n"+call("2", "stubborn", `{}`)+"\n"+call("3", "echo", `{"text":"quick"}`)+"\n",
			Config{RequestTimeout: 20 * time.Millisecond, Executor: ex})
		require.Equal(t, 20*time.Millisecond, time.Since(start))
		got := byID(t, out)
		require.Len(t, got, 3)
		requireError(t, got["1"], "1", -32603, "Request execution timed out")
		requireError(t, got["2"], "2", -32603, "Request execution timed out")
		require.Equal(t, "quick", got["3"].text(t))
		require.Equal(t, "t:context deadline exceeded", <-tt.ended)
		tt.open("stubborn") // its late answer goes nowhere
		require.NoError(t, ex.Close(context.Background()))
	})
}

// A handler that panics past the protocol core's own recovery is answered with -32603.
func TestPanicInHandle(t *testing.T) {
	s, _ := newTestServer(t)
	h := &panicHandler{transport.For(s)}
	var out strings.Builder
	cfg := Config{Input: strings.NewReader(`{"jsonrpc":"2.0","id":"p","method":"boom"}` + "\n" + call("2", "echo", `{"text":"ok"}`) + "\n"), Output: &out}
	cfg.Pool = quietPool(cfg.Pool)
	require.NoError(t, serve(context.Background(), h, transport.For(s).Decoder(), cfg))
	got := byID(t, lines(t, []byte(out.String())))
	requireError(t, got[`"p"`], `"p"`, -32603, "Internal error")
	require.Equal(t, "ok", got["2"].text(t))
}

type panicHandler struct{ *transport.Endpoint }

func (h *panicHandler) Serve(ctx context.Context, st *fastmcp.ConnState, m *decode.Message, sink fastmcp.Sink, dst []byte) fastmcp.Reply {
	if string(m.Method().Text()) == "boom" {
		panic("boom")
	}
	return h.Endpoint.Serve(ctx, st, m, sink, dst)
}

// Case 44: the line limit counts the newline; an over-long line is answered once, its rest
// discarded, and the next line served; a last line without a newline is served if within
// the limit.
func TestLineLimit(t *testing.T) {
	s, _ := newTestServer(t)
	line := call("1", "echo", `{"text":"x"}`)
	n := len(line)

	got := serveAll(t, s, line+"\n", Config{MaxLineBytes: n + 1})
	require.Len(t, got, 1)
	require.Equal(t, "x", decodeLine(t, got[0]).text(t), "exactly at the limit, newline counted")

	got = serveAll(t, s, line+"\n"+call("2", "echo", `{"text":""}`)+"\n", Config{MaxLineBytes: n})
	require.Len(t, got, 2)
	requireError(t, decodeLine(t, got[0]), "null", -32600, "Invalid Request: message exceeds the maximum size")
	require.Equal(t, "2", string(decodeLine(t, got[1]).ID), "one byte shorter: served")

	got = serveAll(t, s, line, Config{MaxLineBytes: n})
	require.Len(t, got, 1, "a last line without a newline, at the limit")
	require.Equal(t, "x", decodeLine(t, got[0]).text(t))

	got = serveAll(t, s, line+"\r\n", Config{MaxLineBytes: n + 1})
	require.Len(t, got, 1)
	requireError(t, decodeLine(t, got[0]), "null", -32600, "") // the CR counts

	// A line many read chunks long is reported once, its rest discarded.
	long := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":"` + strings.Repeat("a", 3*readBufferBytes) + `"}}`
	got = serveAll(t, s, long+"\n"+line+"\n"+long, Config{MaxLineBytes: readBufferBytes + 10})
	require.Len(t, got, 3)
	requireError(t, decodeLine(t, got[0]), "null", -32600, "") // answered before the next line is read
	results, refusals := 0, 0
	for _, l := range got[1:] {
		if m := decodeLine(t, l); m.Error != nil {
			requireError(t, m, "null", -32600, "")
			refusals++
		} else {
			require.Equal(t, "x", m.text(t))
			results++
		}
	}
	require.Equal(t, 1, results)
	require.Equal(t, 1, refusals)
}

// Case 45: the decoder's bounds on numbers, ids and tokens, over stdio; refusals carry a
// null id when the id is out of bounds, and serving goes on.
func TestContentBounds(t *testing.T) {
	s, _ := newTestServer(t)
	digits := func(n int) string { return strings.Repeat("7", n) }
	huge := call("99", "echo", `{"text":"x","n":`+digits(1_999_000)+`}`)
	cases := []struct {
		name string
		line string
		id   string // expected id literal in the reply
		code int    // 0: a result
	}{
		{"64 digits", call("1", "echo", `{"text":"x","n":`+digits(64)+`}`), "1", 0},
		{"sign not counted", call("2", "echo", `{"text":"x","n":-`+digits(64)+`}`), "2", 0},
		{"65 digits", call("3", "echo", `{"text":"x","n":`+digits(65)+`}`), "null", -32700},
		{"trailing data", call("4", "echo", `{"text":"x"}`) + "{}", "null", -32700},
		{"1,999,000 digits", huge, "null", -32700},
		{"id of 256 bytes", call(`"`+strings.Repeat("i", 256)+`"`, "echo", `{"text":"x"}`), `"` + strings.Repeat("i", 256) + `"`, 0},
		{"id of 257 bytes", call(`"`+strings.Repeat("i", 257)+`"`, "echo", `{"text":"x"}`), "null", -32600},
		{"id of 300 bytes", call(`"`+strings.Repeat("i", 300)+`"`, "echo", `{"text":"x"}`), "null", -32600},
		{"int64 max", call("9223372036854775807", "echo", `{"text":"x"}`), "9223372036854775807", 0},
		{"int64 max + 1", call("9223372036854775808", "echo", `{"text":"x"}`), "null", -32600},
		{"int64 min", call("-9223372036854775808", "echo", `{"text":"x"}`), "-9223372036854775808", 0},
		{"fractional id", call("1.5", "echo", `{"text":"x"}`), "null", -32600},
		{"huge id", call(digits(70), "echo", `{"text":"x"}`), "null", -32700},
		{"token of 256 bytes", callWithToken("5", "echo", `{"text":"x"}`, `"`+strings.Repeat("t", 256)+`"`), "5", 0},
		{"token of 257 bytes", callWithToken("6", "echo", `{"text":"x"}`, `"`+strings.Repeat("t", 257)+`"`), "6", -32602},
		{"fractional token", callWithToken("8", "echo", `{"text":"x"}`, `1.5`), "8", -32602},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			got := serveAll(t, s, tc.line+"\n"+call("100", "echo", `{"text":"still serving"}`)+"\n", Config{})
			require.Less(t, time.Since(start), time.Second)
			msgs := byID(t, got)
			require.Len(t, msgs, 2, "%q", got)
			require.Equal(t, "still serving", msgs["100"].text(t))
			m, ok := msgs[tc.id]
			require.True(t, ok, "no reply with id %s: %q", tc.id, got)
			if tc.code == 0 {
				require.Nil(t, m.Error, "%q", m.raw)
				return
			}
			requireError(t, m, tc.id, tc.code, "")
		})
	}
}

// Case 46: non-ASCII text round-trips, and the output is 7-bit clean whatever the input.
func TestNonASCIIRoundTrip(t *testing.T) {
	s, _ := newTestServer(t)
	text := "héllo \u2028 \u2029 😀 中文 \u007f"
	args, err := json.Marshal(map[string]string{"text": text})
	require.NoError(t, err)
	in := call(`"ü-1"`, "echo", string(args)) + "\n" + // raw UTF-8 in the id and the text
		call(`"\u00fc-2"`, "echo", `{"text":"h\u00e9llo \u2028 \ud83d\ude00"}`) + "\n" // escaped
	out := serveAll(t, s, in, Config{}) // lines() checks every byte is ASCII
	require.Len(t, out, 2)
	got := map[string]string{}
	for _, l := range out {
		var m struct {
			ID string `json:"id"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &m))
		got[m.ID] = decodeLine(t, l).text(t)
	}
	require.Equal(t, map[string]string{"ü-1": text, "ü-2": "héllo \u2028 😀"}, got)
	require.Contains(t, out[0]+out[1], `\u2028`)
	require.Contains(t, out[0]+out[1], `\ud83d\ude00`)
}

// A reply the core produced with raw line breaks (a tool's structured content, passed
// through as it is) still goes out as exactly one line.
func TestRawLineBreaksInReply(t *testing.T) {
	s, _ := newTestServer(t)
	fastmcp.AddTool(s, fastmcp.Tool{Name: "pretty"}, func(context.Context, *fastmcp.Request, struct{}) (fastmcp.ToolResult, error) {
		return fastmcp.ToolResult{Text: "x", Structured: json.RawMessage("{\r\n  \"a\": \"é\"\n}")}, nil
	})
	out := serveAll(t, s, call("1", "pretty", `{}`)+"\n", Config{})
	require.Len(t, out, 1)
	var r struct {
		Result struct {
			StructuredContent map[string]string `json:"structuredContent"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(out[0]), &r))
	require.Equal(t, map[string]string{"a": "é"}, r.Result.StructuredContent)
}

// A read error ends the input: the admitted requests are answered, a parse error with a null
// id says why, and Serve returns the error.
func TestReadError(t *testing.T) {
	s, _ := newTestServer(t)
	boom := errors.New("boom")
	var out strings.Builder
	cfg := Config{Input: io.MultiReader(strings.NewReader(call("1", "echo", `{"text":"x"}`)+"\n"+`{"partial`), errReader{boom}), Output: &out}
	cfg.Pool = quietPool(cfg.Pool)
	cfg.Logger = discard
	err := Serve(context.Background(), s, cfg)
	require.ErrorIs(t, err, boom)
	got := lines(t, []byte(out.String()))
	require.Len(t, got, 2)
	msgs := byID(t, got)
	require.Equal(t, "x", msgs["1"].text(t))
	requireError(t, msgs["null"], "null", -32700, "Parse error: failed to read input")
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }
