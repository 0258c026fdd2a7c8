package fastmcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/internal/wireschema"
	"github.com/fastmcp-go/fastmcp/internal/wirevector"
)

// fuzzFixtures are the servers FuzzDispatch sends every input to: between them they register
// every kind of component, MRTR handlers, pagination, a listen-aware catalog, an authorization
// policy, wrappers, and handlers that misbehave.
var fuzzFixtures = []string{"echo", "mrtr", "components", "pages", "listen", "authz", "faults"}

// FuzzDispatch sends arbitrary bytes to the core through Dispatch. Whatever the bytes, the
// core must not panic, and must answer with exactly one well-formed JSON-RPC response, or
// with nothing when the message is a notification or a response object (or a listen whose
// client went away after the acknowledgement). A response is one line of JSON with
// "jsonrpc":"2.0", exactly one of result and error, an id that is null or the request's id
// literal byte for byte (a result always echoes it), a known error code, and it matches the
// official schema's response definitions. Every notification written to the sink is a
// well-formed JSON-RPC notification.
//
// It is seeded with every request of the wire vectors (placeholders left in: they are still
// valid JSON).
func FuzzDispatch(f *testing.F) {
	for _, req := range vectorRequests(f) {
		f.Add(req)
	}
	f.Add([]byte(``))
	f.Add([]byte(`{}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list"}`))
	servers := make([]*fastmcp.Server, len(fuzzFixtures))
	for i, name := range fuzzFixtures {
		servers[i], _ = wirevector.NewFixtureServer(f, name)
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		for i, s := range servers {
			sink := &fuzzSink{}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			reply := s.Dispatch(ctx, bytes.Clone(msg), sink)
			cancel()
			checkFuzzReply(t, fuzzFixtures[i], msg, reply, sink)
		}
	})
}

// fuzzSink records notifications; it fails a listen's acknowledgement (the client went away),
// so a listen ends at once without a reply instead of waiting for events.
type fuzzSink struct {
	mu    sync.Mutex
	notes [][]byte
	acked bool
}

func (k *fuzzSink) Notify(_ context.Context, msg []byte) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.notes = append(k.notes, bytes.Clone(msg))
	if bytes.Contains(msg, []byte(`"notifications/subscriptions/acknowledged"`)) {
		k.acked = true
		return context.Canceled
	}
	return nil
}

// fuzzCodes are the error codes a fixture server may answer with: the core's and the
// authorization fixture's own.
var fuzzCodes = map[int64]bool{
	int64(fastmcp.CodeParseError): true, int64(fastmcp.CodeInvalidRequest): true, int64(fastmcp.CodeMethodNotFound): true,
	int64(fastmcp.CodeInvalidParams): true, int64(fastmcp.CodeInternalError): true, int64(fastmcp.CodeMissingCapability): true,
	int64(fastmcp.CodeUnsupportedVersion): true, int64(fastmcp.CodeAccessDenied): true, -31001: true,
}

// resultDefs names the schema definition of the complete result of each method.
var resultDefs = map[string]string{
	fastmcp.MethodDiscover:          "DiscoverResult",
	fastmcp.MethodToolsList:         "ListToolsResult",
	fastmcp.MethodToolsCall:         "CallToolResult",
	fastmcp.MethodPromptsList:       "ListPromptsResult",
	fastmcp.MethodPromptsGet:        "GetPromptResult",
	fastmcp.MethodResourcesList:     "ListResourcesResult",
	fastmcp.MethodResourceTemplates: "ListResourceTemplatesResult",
	fastmcp.MethodResourcesRead:     "ReadResourceResult",
	fastmcp.MethodComplete:          "CompleteResult",
	fastmcp.MethodListen:            "SubscriptionsListenResult",
}

func checkFuzzReply(t *testing.T, fixture string, msg, reply []byte, sink *fuzzSink) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("fixture %s, input %q:\nreply %s\n"+format, append([]any{fixture, msg, reply}, args...)...)
	}
	for _, n := range sink.notes {
		var note map[string]json.RawMessage
		if bytes.ContainsAny(n, "\r\n") || json.Unmarshal(n, &note) != nil || string(note["jsonrpc"]) != `"2.0"` ||
			note["method"] == nil || note["id"] != nil || note["result"] != nil || note["error"] != nil {
			fail("malformed notification %s", n)
		}
	}
	var in map[string]json.RawMessage
	isObject := json.Unmarshal(msg, &in) == nil
	_, hasID := in["id"]
	_, hasMethod := in["method"]
	if reply == nil {
		switch {
		case sink.acked:
		case isObject && hasMethod && !hasID: // a notification
		case isObject && !hasMethod && (in["result"] != nil || in["error"] != nil): // a response
		default:
			fail("no reply to a request")
		}
		return
	}
	if bytes.ContainsAny(reply, "\r\n") {
		fail("the reply is not one line")
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(reply, &out); err != nil {
		fail("the reply is not a JSON object: %v", err)
	}
	result, isResult := out["result"]
	errObj, isError := out["error"]
	id, echoes := out["id"]
	switch {
	case string(out["jsonrpc"]) != `"2.0"`:
		fail(`jsonrpc is not "2.0"`)
	case isResult == isError:
		fail("want exactly one of result and error")
	case !echoes || len(out) != 3:
		fail("want exactly the members jsonrpc, id and result or error")
	case string(id) == "null" && isResult:
		fail("a result with a null id")
	case string(id) != "null" && !(isObject && bytes.Equal(id, in["id"])):
		fail("the id is neither null nor the request's id literal %s", in["id"])
	}
	if isError {
		var e struct {
			Code    *int64
			Message *string
		}
		if json.Unmarshal(errObj, &e) != nil || e.Code == nil || e.Message == nil || !fuzzCodes[*e.Code] {
			fail("malformed error or unknown code")
		}
		whole := reply
		if string(id) == "null" { // the schema's RequestId has no null: validate without it
			delete(out, "id")
			whole, _ = json.Marshal(out)
		}
		if err := wireschema.Validate(wireschema.Latest, "JSONRPCErrorResponse", whole); err != nil {
			fail("%v", err)
		}
		return
	}
	if !isObject || !hasID || !hasMethod {
		fail("a result to a message that is not a request")
	}
	if err := wireschema.Validate(wireschema.Latest, "JSONRPCResultResponse", reply); err != nil {
		fail("%v", err)
	}
	var method string
	_ = json.Unmarshal(in["method"], &method)
	var rt struct{ ResultType string }
	_ = json.Unmarshal(result, &rt)
	def := resultDefs[method]
	if rt.ResultType == "input_required" {
		if method != fastmcp.MethodToolsCall && method != fastmcp.MethodPromptsGet && method != fastmcp.MethodResourcesRead {
			fail("input_required from %s", method)
		}
		def = "InputRequiredResult"
	}
	if def == "" {
		fail("a result to method %q", method)
	}
	if err := wireschema.Validate(wireschema.Latest, def, result); err != nil {
		fail("%v", err)
	}
}
