package fastmcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fastmcp/transport"
	"github.com/fastmcp-go/fastmcp/internal/wireschema"
	"github.com/fastmcp-go/fastmcp/internal/wirevector"
)

// legacyResultDefs names the definition of each initialize-era method's result.
var legacyResultDefs = map[string]string{
	fastmcp.MethodInitialize:           "InitializeResult",
	fastmcp.MethodPing:                 "EmptyResult",
	fastmcp.MethodSetLevel:             "EmptyResult",
	fastmcp.MethodResourcesSubscribe:   "EmptyResult",
	fastmcp.MethodResourcesUnsubscribe: "EmptyResult",
	fastmcp.MethodToolsList:            "ListToolsResult",
	fastmcp.MethodToolsCall:            "CallToolResult",
	fastmcp.MethodPromptsList:          "ListPromptsResult",
	fastmcp.MethodPromptsGet:           "GetPromptResult",
	fastmcp.MethodResourcesList:        "ListResourcesResult",
	fastmcp.MethodResourceTemplates:    "ListResourceTemplatesResult",
	fastmcp.MethodResourcesRead:        "ReadResourceResult",
	fastmcp.MethodComplete:             "CompleteResult",
}

// FuzzServeLegacy sends arbitrary decodable messages to the core (transport.Endpoint.Serve) in both initialize-era
// dialects, for a stateless client and for one with event delivery. Whatever the bytes, the
// core must not panic and must answer a request with one well-formed JSON-RPC response that
// matches the revision's definitions and carries nothing of 2026-07-28 (no resultType, no
// server _meta, no cache hints), and nothing else. It is seeded with every vector request.
func FuzzServeLegacy(f *testing.F) {
	for _, req := range vectorRequests(f) {
		f.Add(req)
	}
	servers := map[string]*fastmcp.Server{}
	for _, name := range []string{"legacy", "components", "mrtr", "pages"} {
		servers[name], _ = wirevector.NewFixtureServer(f, name)
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		for name, s := range servers {
			var m decode.Message
			if transport.For(s).Decoder().Decode(&m, bytes.Clone(msg)) != nil {
				return // Handle's business: AppendDecodeError
			}
			for _, c := range []fastmcp.ConnState{
				{Dialect: fastmcp.Legacy20251125, LogLevel: fastmcp.LogDebug},
				{Dialect: fastmcp.Legacy20250618, LogLevel: fastmcp.LogInfo, Capabilities: []byte(`{}`), Events: fastmcp.NewLegacyEvents()},
			} {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				r := transport.For(s).Serve(ctx, &c, &m, &fuzzSink{}, nil)
				cancel()
				checkLegacyReply(t, name, c.Dialect, &m, msg, r)
			}
		}
	})
}

func checkLegacyReply(t *testing.T, fixture string, d fastmcp.Dialect, m *decode.Message, msg []byte, r fastmcp.Reply) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("fixture %s, %s, input %q:\nreply %s\n"+format, append([]any{fixture, d, msg, r.Body}, args...)...)
	}
	if r.Rerun {
		fail("Rerun from a sink that never refuses to wait")
	}
	if m.Kind() != decode.KindRequest && m.Kind() != decode.KindInvalid {
		if r.Body != nil {
			fail("a reply to a notification or a response")
		}
		return
	}
	if r.Body == nil || bytes.ContainsAny(r.Body, "\r\n") {
		fail("want one line")
	}
	rev := d.Version()
	var out map[string]json.RawMessage
	if err := json.Unmarshal(r.Body, &out); err != nil {
		fail("not a JSON object: %v", err)
	}
	if e, ok := out["error"]; ok {
		var obj struct{ Code int64 }
		_ = json.Unmarshal(e, &obj)
		if !fuzzCodes[obj.Code] && obj.Code != int64(fastmcp.CodeResourceNotFound) {
			fail("unknown code")
		}
		def := "JSONRPCErrorResponse"
		if d == fastmcp.Legacy20250618 {
			def = "JSONRPCError"
		}
		if string(out["id"]) == "null" {
			delete(out, "id")
		}
		whole, _ := json.Marshal(out)
		if err := wireschema.Validate(rev, def, whole); err != nil {
			fail("%v", err)
		}
		return
	}
	result := string(out["result"])
	for _, modern := range []string{`"resultType"`, `"io.modelcontextprotocol/serverInfo"`, `"ttlMs"`, `"cacheScope"`} {
		if strings.Contains(result, modern) {
			fail("a 2026-07-28 member %s", modern)
		}
	}
	def := legacyResultDefs[string(m.Method().Text())]
	if def == "" {
		fail("a result to method %q", m.Method().Text())
	}
	if def == "EmptyResult" && result != "{}" {
		fail("want exactly {}")
	}
	if err := wireschema.Validate(rev, def, out["result"]); err != nil {
		fail("%v", err)
	}
}
