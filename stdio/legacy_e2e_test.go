package stdio

import (
	"context"
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fastmcp/transport"
	"github.com/fastmcp-go/fastmcp/internal/wirevector"
)

// newLegacyServer is newTestServer with what the initialize-era tests call: "ask" (elicits
// a name, and answers with what the client chose), "logs" (three info messages, one debug)
// and the resource test://watched-resource.
func newLegacyServer(tb testing.TB) (*fastmcp.Server, *testTools) {
	tb.Helper()
	s, tt := newTestServer(tb)
	fastmcp.AddTool(s, fastmcp.Tool{Name: "ask"}, func(_ context.Context, r *fastmcp.Request, _ struct{}) (fastmcp.ToolResult, error) {
		var answer struct {
			Action  string `json:"action"`
			Content struct {
				Name string `json:"name"`
			} `json:"content"`
		}
		if ok, err := r.InputResponse("name", &answer); err != nil || !ok {
			if err != nil {
				return fastmcp.ToolResult{}, err
			}
			return fastmcp.ToolResult{}, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{
				"name": fastmcp.ElicitForm("Your name?", json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)),
			}}
		}
		return fastmcp.ToolResult{Text: answer.Action + " " + answer.Content.Name}, nil
	})
	fastmcp.AddTool(s, fastmcp.Tool{Name: "logs"}, func(ctx context.Context, r *fastmcp.Request, _ struct{}) (fastmcp.ToolResult, error) {
		for _, m := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
			if err := r.Log(ctx, fastmcp.LogInfo, "", m); err != nil {
				return fastmcp.ToolResult{}, err
			}
		}
		if err := r.Log(ctx, fastmcp.LogDebug, "", "detail"); err != nil {
			return fastmcp.ToolResult{}, err
		}
		return fastmcp.ToolResult{Text: "logged"}, nil
	})
	s.AddResource(fastmcp.Resource{URI: "test://watched-resource", Name: "watched"}, func(context.Context, *fastmcp.Request, string) ([]fastmcp.ResourceContents, error) {
		return []fastmcp.ResourceContents{{Text: "watched"}}, nil
	})
	return s, tt
}

// legacyE2E starts a connection to s and opens it at rev with the capabilities caps.
func legacyE2E(t *testing.T, s *fastmcp.Server, cfg Config, rev, caps string) *client {
	t.Helper()
	c := startClient(t, func(cfg Config) error { return Serve(context.Background(), s, cfg) }, cfg)
	c.send(initialize("0", rev, caps))
	c.expect(rev, "InitializeResult", initializedE2E("0", rev))
	c.send(initialized)
	return c
}

// initializedE2E is the server's initialize result at rev: the connection carries list_changed
// and resources/updated, so it advertises them.
func initializedE2E(id, rev string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":"` + rev + `","capabilities":{"logging":{},` +
		`"resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true}},"serverInfo":{"name":"test","version":"1.0.0"}}}`
}

// toolsListE2E is the tools/list result of newLegacyServer, the same on both revisions.
const toolsListE2E = `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"ask","inputSchema":{"type":"object","properties":{}}},` +
	`{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}},` +
	`{"name":"logs","inputSchema":{"type":"object","properties":{}}},{"name":"panic","inputSchema":{"type":"object","properties":{}}},` +
	`{"name":"progress","inputSchema":{"type":"object","properties":{"steps":{"type":"integer"}},"required":["steps"]}},` +
	`{"name":"wait","inputSchema":{"type":"object","properties":{"key":{"type":"string"}},"required":["key"]}}]}}`

func closeClean(t *testing.T, c *client) {
	t.Helper()
	rest, err := c.close()
	require.NoError(t, err)
	require.Empty(t, rest)
}

// initialize, then tools/list and tools/call, on each initialize-era revision.
func TestLegacyE2EToolsOnEachRevision(t *testing.T) {
	for _, rev := range []string{"2025-11-25", "2025-06-18"} {
		t.Run(rev, func(t *testing.T) {
			s, _ := newLegacyServer(t)
			c := legacyE2E(t, s, Config{}, rev, `{}`)
			c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			c.expect(rev, "ListToolsResult", toolsListE2E)
			c.send(legacyCallArgs("2", "echo", `{"text":"hi"}`))
			c.expect(rev, "CallToolResult", textResult("2", `"hi"`))
			c.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
			c.expect(rev, "EmptyResult", `{"jsonrpc":"2.0","id":3,"result":{}}`)
			closeClean(t, c)
		})
	}
}

// legacyCallArgs is legacyCall with arguments.
func legacyCallArgs(id, tool, args string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
}

// modern → 2025-11-25 → 2025-06-18 on one connection; a modern request stays modern.
func TestLegacyE2EConnectionSwitches(t *testing.T) {
	s, _ := newLegacyServer(t)
	c := startClient(t, func(cfg Config) error { return Serve(context.Background(), s, cfg) }, Config{})
	modern := func(id, text string) {
		t.Helper()
		line := c.rawLine()
		require.Equal(t, `{"jsonrpc":"2.0","id":`+id+`,"result":{"resultType":"complete","content":[{"type":"text","text":"`+text+`"}],`+
			`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"test","version":"1.0.0"}}}}`, line, "classification is per request")
		wirevector.Validate(t, "modern echo", "CallToolResult", []byte(line))
	}
	c.send(call("1", "echo", `{"text":"a"}`))
	modern("1", "a")
	for i, rev := range []string{"2025-11-25", "2025-06-18"} {
		id := string(rune('2' + 2*i))
		c.send(initialize(id, rev, `{}`), initialized)
		c.expect(rev, "InitializeResult", initializedE2E(id, rev))
		c.send(legacyCallArgs("9", "echo", `{"text":"`+rev+`"}`))
		c.expect(rev, "CallToolResult", textResult("9", `"`+rev+`"`))
		c.send(call("10", "echo", `{"text":"modern"}`))
		modern("10", "modern")
	}
	closeClean(t, c)
}

// logging/setLevel sets the level the connection's later requests log at.
func TestLegacyE2ESetLevelThenLogs(t *testing.T) {
	s, _ := newLegacyServer(t)
	c := legacyE2E(t, s, Config{}, "2025-11-25", `{}`)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}`)
	c.expect("2025-11-25", "EmptyResult", `{"jsonrpc":"2.0","id":1,"result":{}}`)
	c.send(legacyCall("2", "logs"))
	for _, m := range []string{`"info","data":"Tool execution started"`, `"info","data":"Tool processing data"`, `"info","data":"Tool execution completed"`, `"debug","data":"detail"`} {
		c.expect("2025-11-25", "LoggingMessageNotification", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":`+m+`}}`)
	}
	c.expect("2025-11-25", "CallToolResult", textResult("2", `"logged"`))

	c.send(`{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"error"}}`)
	c.expect("2025-11-25", "EmptyResult", `{"jsonrpc":"2.0","id":3,"result":{}}`)
	c.send(legacyCall("4", "logs"))
	c.expect("2025-11-25", "CallToolResult", textResult("4", `"logged"`))
	closeClean(t, c)
}

// elicitRequest is the elicitation/create line the "ask" tool makes the server write.
func elicitRequest(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"elicitation/create","params":{"mode":"form","message":"Your name?",` +
		`"requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}`
}

// A server-to-client elicitation round trip: the test plays the client. An answer for an id
// nobody waits for is ignored and the next request served.
func TestLegacyE2EElicitationRoundTrip(t *testing.T) {
	s, _ := newLegacyServer(t)
	c := legacyE2E(t, s, Config{}, "2025-11-25", `{"elicitation":{}}`)
	c.send(`{"jsonrpc":"2.0","id":"fastmcp-unknown","result":{"action":"cancel"}}`)
	c.send(legacyCall("1", "ask"))
	req := c.rawLine()
	id := lineID(req)
	require.Equal(t, elicitRequest(id), req)
	requireLegacyValid(t, "2025-11-25", "ElicitRequest", req)
	c.send(`{"jsonrpc":"2.0","id":` + id + `,"result":{"action":"accept","content":{"name":"Ada"}}}`)
	c.expect("2025-11-25", "CallToolResult", textResult("1", `"accept Ada"`))
	require.Zero(t, transport.For(s).OutstandingRequests())
	closeClean(t, c)
}

// An unanswered server-to-client request ends at the request's deadline: -32603, and the
// server withdraws its request (in either order); the late answer is ignored.
func TestLegacyE2EUnansweredTimesOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := newLegacyServer(t)
		c := legacyE2E(t, s, Config{RequestTimeout: 5 * time.Second}, "2025-11-25", `{"elicitation":{}}`)
		c.send(legacyCall("1", "ask"))
		id := lineID(c.rawLine())
		start := time.Now()
		c.expectEither("2025-11-25",
			"error", `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Request execution timed out"}}`,
			"CancelledNotification", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+id+`,"reason":"The request timed out"}}`)
		require.Equal(t, 5*time.Second, time.Since(start))
		require.Zero(t, transport.For(s).OutstandingRequests())
		c.send(`{"jsonrpc":"2.0","id":`+id+`,"result":{"action":"decline"}}`, legacyCallArgs("2", "echo", `{"text":"next"}`))
		c.expect("2025-11-25", "CallToolResult", textResult("2", `"next"`))
		closeClean(t, c)
	})
}

// notifications/cancelled mid-round-trip: no late response, the server withdraws its own
// request, nothing stays outstanding.
func TestLegacyE2ECancelMidRoundTrip(t *testing.T) {
	s, _ := newLegacyServer(t)
	c := legacyE2E(t, s, Config{}, "2025-06-18", `{"elicitation":{}}`)
	c.send(legacyCall("1", "ask"))
	id := lineID(c.rawLine())
	c.send(cancel("1"))
	c.expect("2025-06-18", "CancelledNotification", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+id+`,"reason":"The request was cancelled"}}`)
	require.Zero(t, transport.For(s).OutstandingRequests())
	c.send(legacyCallArgs("1", "echo", `{"text":"reused"}`))
	c.expect("2025-06-18", "CallToolResult", textResult("1", `"reused"`))
	closeClean(t, c)
}

// list_changed after a registration, resources/updated after an update of a subscribed URI.
func TestLegacyE2EEvents(t *testing.T) {
	synctest.Test(t, testLegacyE2EEvents)
}

func testLegacyE2EEvents(t *testing.T) {
	s, _ := newLegacyServer(t)
	c := legacyE2E(t, s, Config{}, "2025-11-25", `{}`)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"test://watched-resource"}}`)
	c.expect("2025-11-25", "EmptyResult", `{"jsonrpc":"2.0","id":1,"result":{}}`)
	synctest.Wait() // the connection's events goroutine listens
	fastmcp.AddTool(s, fastmcp.Tool{Name: "late"}, func(context.Context, *fastmcp.Request, struct{}) (fastmcp.ToolResult, error) {
		return fastmcp.ToolResult{}, nil
	})
	c.expect("2025-11-25", "ToolListChangedNotification", `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	s.NotifyResourceUpdated("test://watched-resource")
	c.expect("2025-11-25", "ResourceUpdatedNotification", `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://watched-resource"}}`)
	s.NotifyResourceUpdated("test://other")
	c.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	c.expect("2025-11-25", "EmptyResult", `{"jsonrpc":"2.0","id":2,"result":{}}`)
	closeClean(t, c)
}

// A change published right after the client read the initialize result reaches it: the
// connection subscribes before it writes that result, not on its events goroutine later.
func TestLegacyE2EEventRightAfterInitialize(t *testing.T) {
	s, _ := newLegacyServer(t)
	c := legacyE2E(t, s, Config{}, "2025-11-25", `{}`)
	fastmcp.AddTool(s, fastmcp.Tool{Name: "late"}, func(context.Context, *fastmcp.Request, struct{}) (fastmcp.ToolResult, error) {
		return fastmcp.ToolResult{}, nil
	})
	c.expect("2025-11-25", "ToolListChangedNotification", `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	closeClean(t, c)
}

// logging/setLevel reads its level as JSON text: "\u0064ebug" is "debug".
func TestLegacyE2ESetLevelEscaped(t *testing.T) {
	s, _ := newLegacyServer(t)
	c := legacyE2E(t, s, Config{}, "2025-11-25", `{}`)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"\u0064ebug"}}`)
	c.expect("2025-11-25", "EmptyResult", `{"jsonrpc":"2.0","id":1,"result":{}}`)
	c.send(legacyCall("2", "logs"))
	for _, m := range []string{`"info","data":"Tool execution started"`, `"info","data":"Tool processing data"`, `"info","data":"Tool execution completed"`, `"debug","data":"detail"`} {
		c.expect("2025-11-25", "LoggingMessageNotification", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":`+m+`}}`)
	}
	c.expect("2025-11-25", "CallToolResult", textResult("2", `"logged"`))
	closeClean(t, c)
}
