package stdio

import (
	"context"
	"io"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/internal/wirevector"
	"github.com/fastmcp-go/fastmcp/pool"
)

// initialize returns an initialize request line offering version with the capabilities
// object caps.
func initialize(id, version, caps string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"initialize","params":{"protocolVersion":"` + version +
		`","capabilities":` + caps + `,"clientInfo":{"name":"client","version":"1.0.0"}}}`
}

// standInInitialized is the stand-in's initialize result for version.
func standInInitialized(id, version string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":"` + version +
		`","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"stand-in","version":"1.0.0"}}}`
}

// legacyCall is a tools/call line with no _meta, as an initialize-era client sends it.
func legacyCall(id, tool string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
}

// textResult is a tools/call result line with one text block (a JSON string literal).
func textResult(id, text string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":` + text + `}]}}`
}

const initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

// expect reads the next line, checks it byte for byte and against definition def of rev.
func (c *client) expect(rev, def, want string) {
	c.tb.Helper()
	got := c.rawLine()
	require.Equal(c.tb, want, got)
	requireLegacyValid(c.tb, rev, def, got)
}

// expectEither reads the next two lines, which are want1 and want2 (of definitions def1 and
// def2) in either order.
func (c *client) expectEither(rev, def1, want1, def2, want2 string) {
	c.tb.Helper()
	got := []string{c.rawLine(), c.rawLine()}
	if got[0] == want2 {
		got[0], got[1] = got[1], got[0]
	}
	require.Equal(c.tb, []string{want1, want2}, got)
	requireLegacyValid(c.tb, rev, def1, got[0])
	requireLegacyValid(c.tb, rev, def2, got[1])
}

// The connection's dialect is what the last initialize negotiated, a repeated initialize
// switches it, and classification is per request: a modern request (its _meta) on a legacy
// connection is still served as modern. Each initialize-era state has its own events
// goroutine, which ends when the next initialize replaces it and when the input ends.
func TestLegacyConnectionSwitchesByInitialize(t *testing.T) {
	s, _ := newTestServer(t)
	h := newLegacyCore(s)
	c := startClient(t, h.run(context.Background()), Config{})

	// Before initialize: modern, and a request without _meta is the modern dialect's to refuse.
	c.send(call("1", "echo", `{"text":"modern"}`))
	modern := c.rawLine()
	require.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"modern"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"test","version":"1.0.0"}}}}`, modern)
	wirevector.Validate(t, "modern echo", "CallToolResult", []byte(modern))
	c.send(legacyCall("2", "probe"))
	require.NotNil(t, c.recv().Error, "no version negotiated: modern rules")

	c.send(initialize("3", "2025-11-25", `{"elicitation":{}}`), initialized)
	c.expect("2025-11-25", "InitializeResult", standInInitialized("3", "2025-11-25"))
	require.Equal(t, "start", <-h.evRuns)
	c.send(legacyCall("4", "probe"))
	c.expect("2025-11-25", "CallToolResult", textResult("4", `"2025-11-25 caps={\"elicitation\":{}} level=1 events=true"`))

	c.send(call("5", "echo", `{"text":"still modern"}`))
	require.Equal(t, `{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete","content":[{"type":"text","text":"still modern"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"test","version":"1.0.0"}}}}`, c.rawLine())

	c.send(initialize("6", "2025-06-18", `{}`), initialized)
	c.expect("2025-06-18", "InitializeResult", standInInitialized("6", "2025-06-18"))
	require.ElementsMatch(t, []string{"end", "start"}, []string{<-h.evRuns, <-h.evRuns}, "the replaced state's events end, the new one's start")
	c.send(legacyCall("7", "probe"))
	c.expect("2025-06-18", "CallToolResult", textResult("7", `"2025-06-18 caps={} level=1 events=true"`))

	rest, err := c.close()
	require.NoError(t, err)
	require.Empty(t, rest)
	require.Equal(t, "end", <-h.evRuns)
}

// logging/setLevel sets the connection's level for the requests admitted after it, and only
// the level: the dialect stays the one initialize negotiated. Before any setLevel the level
// is the server's LegacyLogLevel (info).
func TestLegacySetLevelKeptPerConnection(t *testing.T) {
	s, _ := newTestServer(t)
	h := newLegacyCore(s)
	c := startClient(t, h.run(context.Background()), Config{})
	c.send(initialize("1", "2025-06-18", `{}`))
	c.expect("2025-06-18", "InitializeResult", standInInitialized("1", "2025-06-18"))
	<-h.evRuns
	c.send(`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"error"}}`)
	c.expect("2025-06-18", "EmptyResult", `{"jsonrpc":"2.0","id":2,"result":{}}`)
	c.send(legacyCall("3", "probe"))
	c.expect("2025-06-18", "CallToolResult", textResult("3", `"2025-06-18 caps={} level=4 events=true"`))
	_, err := c.close()
	require.NoError(t, err)
	<-h.evRuns
}

// A server-to-client request is one line with the server's id, written before the request's
// response; the client's response line is delivered to Answer and the request finishes with
// it. An answer for an id nobody waits for is ignored, and the next request is served.
func TestLegacyRoundTrip(t *testing.T) {
	s, _ := newTestServer(t)
	h := newLegacyCore(s)
	c := startClient(t, h.run(context.Background()), Config{})
	c.send(initialize("1", "2025-11-25", `{"elicitation":{}}`))
	c.expect("2025-11-25", "InitializeResult", standInInitialized("1", "2025-11-25"))
	<-h.evRuns

	c.send(`{"jsonrpc":"2.0","id":"nobody","result":{"action":"cancel"}}`)
	c.send(legacyCall("2", "ask"))
	c.expect("2025-11-25", "ElicitRequest", `{"jsonrpc":"2.0","id":"srv-1","method":"elicitation/create","params":{"message":"Your name?",`+
		`"requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}`)
	c.send(`{"jsonrpc":"2.0","id":"srv-1","result":{"action":"accept","content":{"name":"Ada"}}}`)
	c.expect("2025-11-25", "CallToolResult", textResult("2", `"answered {\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}"`))

	c.send(`{"jsonrpc":"2.0","id":"srv-1","result":{"action":"accept","content":{"name":"again"}}}`, legacyCall("3", "probe"))
	c.expect("2025-11-25", "CallToolResult", textResult("3", `"2025-11-25 caps={\"elicitation\":{}} level=1 events=true"`))
	require.Zero(t, h.outstanding())
	rest, err := c.close()
	require.NoError(t, err)
	require.Empty(t, rest)
	<-h.evRuns
}

// A server-to-client request the client never answers ends with the request's deadline: the
// -32603 timeout and the server's withdrawal of its own request, in either order (the
// executor answers the timeout as it cancels the handler's context, and the withdrawal is
// written even when the request has had its last word).
func TestLegacyUnansweredRequestTimesOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := newTestServer(t)
		h := newLegacyCore(s)
		c := startClient(t, h.run(context.Background()), Config{RequestTimeout: 2 * time.Second})
		c.send(initialize("1", "2025-11-25", `{"elicitation":{}}`))
		c.expect("2025-11-25", "InitializeResult", standInInitialized("1", "2025-11-25"))
		<-h.evRuns
		c.send(legacyCall("2", "ask"))
		require.Equal(t, `"srv-1"`, lineID(c.rawLine()))
		start := time.Now()
		c.expectEither("2025-11-25",
			"error", `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Request execution timed out"}}`,
			"CancelledNotification", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"srv-1","reason":"request ended"}}`)
		require.Equal(t, 2*time.Second, time.Since(start))
		require.Zero(t, h.outstanding())

		// The answer that arrives now is late: ignored, and the connection serves on.
		c.send(`{"jsonrpc":"2.0","id":"srv-1","result":{"action":"decline"}}`, legacyCall("3", "probe"))
		c.expect("2025-11-25", "CallToolResult", textResult("3", `"2025-11-25 caps={\"elicitation\":{}} level=1 events=true"`))
		rest, err := c.close()
		require.NoError(t, err)
		require.Empty(t, rest)
		<-h.evRuns
	})
}

// notifications/cancelled for a request awaiting the client's answer ends exactly that
// request: no response, ever; the server withdraws its own request; nothing stays
// outstanding, and the id is free at once.
func TestLegacyCancelMidRoundTrip(t *testing.T) {
	s, _ := newTestServer(t)
	h := newLegacyCore(s)
	c := startClient(t, h.run(context.Background()), Config{})
	c.send(initialize("1", "2025-11-25", `{"elicitation":{}}`))
	c.expect("2025-11-25", "InitializeResult", standInInitialized("1", "2025-11-25"))
	<-h.evRuns
	c.send(legacyCall("2", "ask"))
	require.Equal(t, `"srv-1"`, lineID(c.rawLine()))
	require.Equal(t, `"srv-1"`, <-h.asked)
	c.send(cancel("2"))
	c.expect("2025-11-25", "CancelledNotification", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"srv-1","reason":"request ended"}}`)
	require.Zero(t, h.outstanding())

	// The client's answer, already on its way, finds nobody; id 2 is free again.
	c.send(`{"jsonrpc":"2.0","id":"srv-1","result":{"action":"accept","content":{"name":"late"}}}`, legacyCall("2", "probe"))
	c.expect("2025-11-25", "CallToolResult", textResult("2", `"2025-11-25 caps={\"elicitation\":{}} level=1 events=true"`))
	rest, err := c.close()
	require.NoError(t, err)
	require.Empty(t, rest, "no late response for the cancelled request")
	<-h.evRuns
}

// An initialize-era initialize cannot be cancelled (the client MUST NOT): a cancellation
// sent while it runs is ignored and initialize answers; the lines after it are read once it
// has, so the request behind the cancellation is served in the revision it negotiated.
func TestLegacyInitializeIgnoresCancel(t *testing.T) {
	s, _ := newTestServer(t)
	h := newLegacyCore(s)
	h.initGate, h.initStarted = make(chan struct{}), make(chan struct{}, 1)
	c := startClient(t, h.run(context.Background()), Config{})
	_, err := io.WriteString(c.in, initialize("1", "2025-11-25", `{}`)+"\n"+cancel("1")+"\n"+legacyCall(`"b"`, "probe")+"\n")
	require.NoError(t, err)
	<-h.initStarted
	close(h.initGate)
	c.expect("2025-11-25", "InitializeResult", standInInitialized("1", "2025-11-25"))
	<-h.evRuns
	c.expect("2025-11-25", "CallToolResult", textResult(`"b"`, `"2025-11-25 caps={} level=1 events=true"`))
	_, err = c.close()
	require.NoError(t, err)
	<-h.evRuns
}

// The notifications an initialize-era client gets unasked (list_changed, resources/updated)
// are written as lines while its state lives.
func TestLegacyEventsWritten(t *testing.T) {
	s, _ := newTestServer(t)
	h := newLegacyCore(s)
	c := startClient(t, h.run(context.Background()), Config{})
	c.send(initialize("1", "2025-11-25", `{}`))
	c.expect("2025-11-25", "InitializeResult", standInInitialized("1", "2025-11-25"))
	<-h.evRuns
	changed := `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
	h.events <- changed
	c.expect("2025-11-25", "ToolListChangedNotification", changed)
	updated := `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://watched-resource"}}`
	h.events <- updated
	c.expect("2025-11-25", "ResourceUpdatedNotification", updated)
	_, err := c.close()
	require.NoError(t, err)
	require.Equal(t, "end", <-h.evRuns)
}

// A panic in the connection's events goroutine is logged, and the connection serves on.
func TestLegacyEventsPanicContained(t *testing.T) {
	s, _ := newTestServer(t)
	h := newLegacyCore(s)
	h.evPanic = true
	c := startClient(t, h.run(context.Background()), Config{})
	c.send(initialize("1", "2025-11-25", `{}`))
	c.expect("2025-11-25", "InitializeResult", standInInitialized("1", "2025-11-25"))
	require.Equal(t, "start", <-h.evRuns)
	require.Equal(t, "end", <-h.evRuns)
	c.send(legacyCall("2", "probe"))
	c.expect("2025-11-25", "CallToolResult", textResult("2", `"2025-11-25 caps={} level=1 events=true"`))
	_, err := c.close()
	require.NoError(t, err)
}

// An answer is never queued behind requests: with the only worker held by a request
// awaiting the client, and another request queued behind it, the answer still reaches the
// waiting request, which finishes and frees the worker for the queued one.
func TestLegacyAnswerNotBehindQueuedRequests(t *testing.T) {
	s, _ := newTestServer(t)
	h := newLegacyCore(s)
	ex := newExecutor(t, pool.Config{MaxConcurrency: 1, MaxQueue: 1})
	c := startClient(t, h.run(context.Background()), Config{Executor: ex})
	c.send(initialize("1", "2025-11-25", `{"elicitation":{}}`))
	c.expect("2025-11-25", "InitializeResult", standInInitialized("1", "2025-11-25"))
	<-h.evRuns
	c.send(legacyCall("2", "ask"))
	require.Equal(t, `"srv-1"`, lineID(c.rawLine()))
	c.send(legacyCall("3", "probe"), `{"jsonrpc":"2.0","id":"srv-1","result":{"action":"decline"}}`)
	c.expect("2025-11-25", "CallToolResult", textResult("2", `"answered {\"action\":\"decline\"}"`))
	c.expect("2025-11-25", "CallToolResult", textResult("3", `"2025-11-25 caps={\"elicitation\":{}} level=1 events=true"`))
	_, err := c.close()
	require.NoError(t, err)
	<-h.evRuns
}
