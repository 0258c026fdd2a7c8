package fastmcp_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fastmcp/transport"
	"github.com/fastmcp-go/fastmcp/internal/wirevector"
)

// The rounds of server-to-client requests of an initialize-era request, through the real
// bridge: the core (transport.Endpoint.Serve) sends the handler's input requests to the client (a Requester), waits
// for the answers the transport hands to Answer, and runs the handler again with them.

// clientSink is a Requester playing the client: a goroutine answers each request it writes
// with answer(method) (the members after the id), through transport.Endpoint.Answer, as a transport
// does when the client's response arrives. With rev set, each request is validated against
// that revision's definition (only where the core (transport.Endpoint.Serve) runs on the test's goroutine).
type clientSink struct {
	noteSink
	t          *testing.T
	s          *fastmcp.Server
	rev        string // the revision the requests must match
	answer     func(method string) string
	cannotWait bool
	sent       chan string // every request written, for the test
}

func newClientSink(t *testing.T, s *fastmcp.Server, rev string, answer func(string) string) *clientSink {
	return &clientSink{t: t, s: s, rev: rev, answer: answer, sent: make(chan string, 64)}
}

func (k *clientSink) Request(_ context.Context, msg []byte) error {
	if k.cannotWait {
		return fastmcp.ErrCannotWait
	}
	var m decode.Message
	if err := decode.Decode(&m, msg); err != nil {
		k.t.Errorf("the server sent %s: %v", msg, err)
		return err
	}
	method := string(m.Method().Text())
	if k.rev != "" { // validated on the test's goroutine only (it may fail the test)
		def := map[string]string{"elicitation/create": "ElicitRequest", "sampling/createMessage": "CreateMessageRequest", "roots/list": "ListRootsRequest"}[method]
		wirevector.ValidateRevision(k.t, "server request", k.rev, def, msg)
	}
	k.sent <- string(msg)
	if k.answer == nil {
		return nil // never answered
	}
	reply := []byte(`{"jsonrpc":"2.0","id":` + string(m.ID().Raw()) + `,` + k.answer(method) + `}`)
	go func() {
		var r decode.Message
		if err := transport.For(k.s).Decoder().Decode(&r, reply); err != nil || !transport.For(k.s).Answer(&r, "") {
			k.t.Errorf("the answer was not taken: %s", reply) // the round then never ends: the test times out
		}
	}()
	return nil
}

const (
	elicitAnswer = `"result":{"action":"accept","content":{"name":"Ada"}}`
	sampleAnswer = `"result":{"role":"assistant","content":{"type":"text","text":"4"},"model":"test-model","stopReason":"endTurn"}`
)

var nameSchema = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)

// newAskServer has a tool that asks two rounds (a name, then a sample, carrying its state),
// a prompt and a resource that ask once, and a tool that asks forever.
func newAskServer(t *testing.T, cfg *fastmcp.Config) *fastmcp.Server {
	s := newLegacyServer(t, cfg)
	s.AddRawTool(fastmcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
			var who struct{ Content struct{ Name string } }
			ok, err := r.InputResponse("who", &who)
			switch {
			case err != nil:
				return fastmcp.ErrorResult("no name: " + err.Error()), nil
			case !ok && r.State() == nil:
				return fastmcp.ToolResult{}, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{
					"who": fastmcp.ElicitForm("Your name?", nameSchema),
				}}
			case ok:
				return fastmcp.ToolResult{}, &fastmcp.InputRequired{State: []byte("name=" + who.Content.Name), Requests: map[string]fastmcp.InputRequest{
					"sum": fastmcp.Sample(json.RawMessage(`{"messages":[{"role":"user","content":{"type":"text","text":"2+2?"}}],"maxTokens":10}`)),
				}}
			}
			var sum struct{ Content struct{ Text string } }
			if ok, _ := r.InputResponse("sum", &sum); !ok || r.HasInputResponse("who") {
				return fastmcp.ErrorResult("lost the second round"), nil
			}
			return fastmcp.ToolResult{Text: string(r.State()) + " sum=" + sum.Content.Text}, nil
		})
	s.AddRawTool(fastmcp.Tool{Name: "insist", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
			return fastmcp.ToolResult{}, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{"roots": fastmcp.ListRoots()}}
		})
	s.AddPrompt(fastmcp.Prompt{Name: "greet"},
		func(_ context.Context, r *fastmcp.Request, _ map[string]string) (fastmcp.PromptResult, error) {
			var who struct{ Content struct{ Name string } }
			if ok, err := r.InputResponse("who", &who); err != nil {
				return fastmcp.PromptResult{}, err
			} else if !ok {
				return fastmcp.PromptResult{}, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{"who": fastmcp.ElicitForm("Your name?", nameSchema)}}
			}
			return fastmcp.PromptResult{Messages: []fastmcp.PromptMessage{fastmcp.UserMessage(fastmcp.Text("Hello, " + who.Content.Name))}}, nil
		})
	s.AddResource(fastmcp.Resource{URI: "test://roots", Name: "roots"},
		func(_ context.Context, r *fastmcp.Request, _ string) ([]fastmcp.ResourceContents, error) {
			var roots struct{ Roots []struct{ URI string } }
			if ok, _ := r.InputResponse("roots", &roots); !ok {
				return nil, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{"roots": fastmcp.ListRoots()}}
			}
			return []fastmcp.ResourceContents{{Text: roots.Roots[0].URI}}, nil
		})
	return s
}

func answers(method string) string {
	switch method {
	case "elicitation/create":
		return elicitAnswer
	case "sampling/createMessage":
		return sampleAnswer
	}
	return `"result":{"roots":[{"uri":"file:///project"}]}`
}

func TestLegacyInputRounds(t *testing.T) {
	for _, d := range []fastmcp.Dialect{fastmcp.Legacy20251125, fastmcp.Legacy20250618} {
		t.Run(d.String(), func(t *testing.T) {
			s := newAskServer(t, nil)
			sink := newClientSink(t, s, d.Version(), answers)
			c := &fastmcp.ConnState{Dialect: d, LogLevel: fastmcp.LogInfo}
			r := serveLegacy(t, s, c, sink, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`, d.Version(), "CallToolResult")
			assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"name=Ada sum=4"}]}}`, string(r.Body))
			require.Len(t, sink.sent, 2, "one request per round")
			assert.Contains(t, <-sink.sent, `"method":"elicitation/create"`)
			assert.Contains(t, <-sink.sent, `"method":"sampling/createMessage"`)

			r = serveLegacy(t, s, c, sink, `{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"greet"}}`, d.Version(), "GetPromptResult")
			assert.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{"messages":[{"role":"user","content":{"type":"text","text":"Hello, Ada"}}]}}`, string(r.Body))
			r = serveLegacy(t, s, c, sink, `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"test://roots"}}`, d.Version(), "ReadResourceResult")
			assert.Equal(t, `{"jsonrpc":"2.0","id":3,"result":{"contents":[{"uri":"test://roots","text":"file:///project"}]}}`, string(r.Body))
			assert.Zero(t, transport.For(s).OutstandingRequests())
		})
	}
}

// TestLegacyInputErrorAnswer: a client that answers with an error makes InputResponse return
// (true, that *Error); a prompt that returns it answers with it.
func TestLegacyInputErrorAnswer(t *testing.T) {
	s := newAskServer(t, nil)
	sink := newClientSink(t, s, "2025-11-25", func(string) string {
		return `"error":{"code":-32601,"message":"Elicitation not supported"}`
	})
	c := &fastmcp.ConnState{Dialect: fastmcp.Legacy20251125}
	r := serveLegacy(t, s, c, sink, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`, "2025-11-25", "CallToolResult")
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"no name: fastmcp: Elicitation not supported (-32601)"}],"isError":true}}`, string(r.Body))
	r = serveLegacy(t, s, c, sink, `{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"greet"}}`, "2025-11-25", "JSONRPCErrorResponse")
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Elicitation not supported"}}`, string(r.Body))
}

// TestLegacyInputMalformedAnswer: an answer whose shape does not fit what was asked is -32602
// before the handler sees it.
func TestLegacyInputMalformedAnswer(t *testing.T) {
	s := newAskServer(t, nil)
	sink := newClientSink(t, s, "2025-11-25", func(string) string { return `"result":{"action":"maybe"}` })
	r := serveLegacy(t, s, &fastmcp.ConnState{Dialect: fastmcp.Legacy20251125}, sink,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`, "2025-11-25", "InvalidParamsError")
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: malformed input response"}}`, string(r.Body))
}

// TestLegacyInputCannotWait: a transport running the request inline gets Reply.Rerun and no
// body; nothing was sent.
func TestLegacyInputCannotWait(t *testing.T) {
	s := newAskServer(t, nil)
	sink := newClientSink(t, s, "2025-11-25", answers)
	sink.cannotWait = true
	r := serveLegacy(t, s, &fastmcp.ConnState{Dialect: fastmcp.Legacy20251125}, sink,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`, "2025-11-25", "")
	assert.Equal(t, fastmcp.Reply{Rerun: true}, r)
	assert.Empty(t, sink.sent)
	assert.Zero(t, transport.For(s).OutstandingRequests())
}

// TestLegacyInputTooManyRounds: past Config.MaxInputRounds rounds the request is -32603.
func TestLegacyInputTooManyRounds(t *testing.T) {
	s := newAskServer(t, &fastmcp.Config{MaxInputRounds: 3})
	sink := newClientSink(t, s, "2025-06-18", answers)
	r := serveLegacy(t, s, &fastmcp.ConnState{Dialect: fastmcp.Legacy20250618}, sink,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"insist"}}`, "2025-06-18", "InternalError")
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Too many input rounds"}}`, string(r.Body))
	assert.Len(t, sink.sent, 3)
}

// TestLegacyInputRefused: an input the client cannot give ends a tools/call with an isError
// result the model reads, and a prompt or resource with the error: a capability its
// initialize did not declare (-32021), a transport that carries no requests (-32603).
func TestLegacyInputRefused(t *testing.T) {
	s := newAskServer(t, nil)
	noElicit := &fastmcp.ConnState{Dialect: fastmcp.Legacy20251125, Capabilities: []byte(`{"sampling":{}}`)}
	sink := newClientSink(t, s, "2025-11-25", answers)
	r := serveLegacy(t, s, noElicit, sink, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`, "2025-11-25", "CallToolResult")
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Missing required client capability: {\"elicitation\":{\"form\":{}}}"}],"isError":true}}`, string(r.Body))
	r = serveLegacy(t, s, noElicit, sink, `{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"greet"}}`, "2025-11-25", "JSONRPCErrorResponse")
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"error":{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"elicitation":{"form":{}}}}}}`, string(r.Body))
	assert.False(t, r.Err.Admission(), "a JSON-RPC error in a 200")
	assert.Empty(t, sink.sent)

	plain := &fastmcp.ConnState{Dialect: fastmcp.Legacy20251125}
	r = serveLegacy(t, s, plain, &noteSink{}, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask"}}`, "2025-11-25", "CallToolResult")
	assert.Equal(t, `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"The transport cannot send requests to the client"}],"isError":true}}`, string(r.Body))
	r = serveLegacy(t, s, plain, nil, `{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"test://roots"}}`, "2025-11-25", "InternalError")
	assert.Equal(t, `{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"The transport cannot send requests to the client"}}`, string(r.Body))
}

// TestLegacyInputCancelled: a request cancelled while it waits for the client gets no reply,
// as Handle sends none for a cancelled request; the client is told the request is withdrawn.
func TestLegacyInputCancelled(t *testing.T) {
	s := newAskServer(t, nil)
	sink := newClientSink(t, s, "", nil) // never answers
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan fastmcp.Reply)
	m := decodeMsg(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`)
	go func() {
		done <- transport.For(s).Serve(ctx, &fastmcp.ConnState{Dialect: fastmcp.Legacy20251125}, m, sink, nil)
	}()
	sent := <-sink.sent // the request is out: cancel while it waits
	cancel()
	assert.Equal(t, fastmcp.Reply{}, <-done)
	var req decode.Message
	require.NoError(t, decode.Decode(&req, []byte(sent)))
	require.Len(t, sink.messages(), 1)
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+string(req.ID().Raw())+`,"reason":"The request was cancelled"}}`, sink.messages()[0])
	wirevector.ValidateRevision(t, "cancelled", "2025-11-25", "CancelledNotification", []byte(sink.messages()[0]))
	assert.Zero(t, transport.For(s).OutstandingRequests())
}

// TestLegacyInputConcurrent: rounds of many requests at once each get their own answers.
func TestLegacyInputConcurrent(t *testing.T) {
	s := newAskServer(t, nil)
	const n = 32
	replies := make(chan string, n)
	for i := range n {
		sink := newClientSink(t, s, "", answers)
		m := decodeMsg(t, s, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"method":"tools/call","params":{"name":"ask"}}`)
		go func() {
			replies <- string(transport.For(s).Serve(context.Background(), &fastmcp.ConnState{Dialect: fastmcp.Legacy20251125}, m, sink, nil).Body)
		}()
	}
	for range n {
		assert.Contains(t, <-replies, `"text":"name=Ada sum=4"`)
	}
	assert.Zero(t, transport.For(s).OutstandingRequests())
}
