package streamable

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/internal/wireschema"
)

// The initialize-era revisions as the tests speak them.
const (
	v1125 = "2025-11-25"
	v0618 = "2025-06-18"
)

var legacyVersions = []string{v1125, v0618}

// legacyCore is newCore plus the tools the initialize-era tests need: ask (a form
// elicitation, answered through the POST's event stream), chatty (three info log messages
// then a result) and flood (logs until Log fails, then reports how many went out).
func legacyCore(t testing.TB) *fastmcp.Server {
	t.Helper()
	s := newCore(t)
	s.AddRawTool(fastmcp.Tool{Name: "ask", Description: "Asks for a name", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
			var a struct {
				Action  string            `json:"action"`
				Content map[string]string `json:"content"`
			}
			ok, err := r.InputResponse("name", &a)
			switch {
			case err != nil:
				return fastmcp.ToolResult{}, err
			case !ok:
				return fastmcp.ToolResult{}, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{
					"name": fastmcp.ElicitForm("Your name?", json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)),
				}}
			}
			return fastmcp.ToolResult{Text: "hello, " + a.Content["name"] + " (" + a.Action + ")"}, nil
		})
	s.AddRawTool(fastmcp.Tool{Name: "chatty", Description: "Logs three lines", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
			for _, line := range []string{"started", "working", "done"} {
				if err := r.Log(ctx, fastmcp.LogInfo, "chatty", line); err != nil {
					return fastmcp.ToolResult{}, err
				}
			}
			return fastmcp.ToolResult{Text: "chatted"}, nil
		})
	s.AddRawTool(fastmcp.Tool{Name: "flood", Description: "Logs until refused", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
			n := 0
			for ; n < 1000; n++ {
				if err := r.Log(ctx, fastmcp.LogInfo, "flood", n); err != nil {
					return fastmcp.ToolResult{Text: strconv.Itoa(n) + " sent: " + err.Error()}, nil
				}
			}
			return fastmcp.ToolResult{Text: "none refused"}, nil
		})
	return s
}

// legacyPost builds a literal POST of body as an initialize-era client sends it: the media
// types, MCP-Protocol-Version: version unless version is "", and extra lines.
func legacyPost(host, body, version string, extra ...string) string {
	var b strings.Builder
	b.WriteString("POST /mcp HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\n")
	if version != "" {
		b.WriteString("MCP-Protocol-Version: " + version + "\r\n")
	}
	for _, e := range extra {
		b.WriteString(e + "\r\n")
	}
	b.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
	return b.String()
}

// initializeBody is the initialize request of the conformance suite's client, offering version.
func initializeBody(id, version string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"initialize","params":{"protocolVersion":"` + version +
		`","capabilities":{"sampling":{},"elicitation":{}},"clientInfo":{"name":"conformance-test-client","version":"1.0.0"}}}`
}

// legacyCall is an initialize-era tools/call body: no _meta.
func legacyCall(id, tool, args string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
}

// legacyStream is one POST whose response is read as it arrives: a JSON body, or the events
// of an event stream one at a time.
type legacyStream struct {
	t    testing.TB
	conn net.Conn
	resp *http.Response
	br   *bufio.Reader // of the response body
}

// openPost sends raw on a new connection to addr and reads the response head.
func openPost(t testing.TB, addr, raw string) *legacyStream {
	t.Helper()
	c := dialAt(t, addr)
	_, err := io.WriteString(c, raw)
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return &legacyStream{t: t, conn: c, resp: resp, br: bufio.NewReader(resp.Body)}
}

// isStream reports whether the response is an event stream.
func (s *legacyStream) isStream() bool {
	return s.resp.Header.Get("Content-Type") == "text/event-stream"
}

// next returns the data of the next event; ok is false at the end of the stream.
func (s *legacyStream) next() (data string, ok bool) {
	s.t.Helper()
	var lines []string
	for {
		line, err := s.br.ReadString('\n')
		if errors.Is(err, io.EOF) && line == "" && lines == nil {
			return "", false
		}
		require.NoError(s.t, err, "reading the event stream")
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "" && lines != nil:
			return strings.Join(lines, "\n"), true
		case strings.HasPrefix(line, "data: "):
			lines = append(lines, strings.TrimPrefix(line, "data: "))
		}
	}
}

// events reads the whole event stream.
func (s *legacyStream) events() []string {
	s.t.Helper()
	require.True(s.t, s.isStream(), "an event stream, not %q", s.resp.Header.Get("Content-Type"))
	var out []string
	for {
		ev, ok := s.next()
		if !ok {
			return out
		}
		out = append(out, ev)
	}
}

// requireLegacyValid validates msg against revision rev's schema: def is the definition of
// the result (validated as the result member, the whole as the revision's result response),
// of a request or notification (the whole message), or "" for an error response.
func requireLegacyValid(t testing.TB, rev, def, msg string) {
	t.Helper()
	var env map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(msg), &env), "%s", msg)
	resultEnv, errorEnv := "JSONRPCResultResponse", "JSONRPCErrorResponse"
	if rev == v0618 {
		resultEnv, errorEnv = "JSONRPCResponse", "JSONRPCError"
	}
	switch {
	case def == "":
		require.Contains(t, env, "error", "%s", msg)
		whole := []byte(msg)
		if string(env["id"]) == "null" { // JSON-RPC's answer to an unreadable id; the schema leaves id out
			delete(env, "id")
			whole, _ = json.Marshal(env)
		}
		wireschema.RequireValidRev(t, rev, errorEnv, whole)
	case strings.HasSuffix(def, "Result"):
		require.Contains(t, env, "result", "%s", msg)
		wireschema.RequireValidRev(t, rev, def, env["result"])
		wireschema.RequireValidRev(t, rev, resultEnv, []byte(msg))
	default:
		wireschema.RequireValidRev(t, rev, def, []byte(msg))
	}
}

// idOf returns the id literal of a message.
func idOf(t testing.TB, msg string) string {
	t.Helper()
	var env struct {
		ID json.RawMessage `json:"id"`
	}
	require.NoError(t, json.Unmarshal([]byte(msg), &env), "%s", msg)
	return string(env.ID)
}
