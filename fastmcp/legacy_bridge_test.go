package fastmcp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/internal/wireschema"
)

// bridgeSink is a Requester that hands every request it writes to the test on sent and
// records the notifications.
type bridgeSink struct {
	sent       chan string
	cannotWait bool                          // Request returns ErrCannotWait
	onRequest  func(i int, msg string) error // when set, decides each Request instead of sent

	mu       sync.Mutex
	requests int
	notes    []string
}

func newBridgeSink() *bridgeSink { return &bridgeSink{sent: make(chan string, 16)} }

func (k *bridgeSink) Request(_ context.Context, msg []byte) error {
	if k.cannotWait {
		return ErrCannotWait
	}
	k.mu.Lock()
	i := k.requests
	k.requests++
	k.mu.Unlock()
	if k.onRequest != nil {
		return k.onRequest(i, string(msg))
	}
	k.sent <- string(msg)
	return nil
}

func (k *bridgeSink) Notify(_ context.Context, msg []byte) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.notes = append(k.notes, string(msg))
	return nil
}

func (k *bridgeSink) notifications() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.notes...)
}

// bridgeRun is one bridgeInput call running on its own goroutine.
type bridgeRun struct {
	done    chan struct{}
	answers *inputAnswers
	err     error
}

func startBridge(ctx context.Context, s *Server, c *ConnState, sink Sink, ir *InputRequired) *bridgeRun {
	b := &bridgeRun{done: make(chan struct{})}
	go func() {
		defer close(b.done)
		b.answers, b.err = s.bridgeInput(ctx, &Request{server: s, method: "tools/call"}, c, sink, ir)
	}()
	return b
}

func (b *bridgeRun) wait(t *testing.T) (*inputAnswers, error) {
	t.Helper()
	<-b.done // in a synctest bubble a bridge that never returns fails the test as a deadlock
	return b.answers, b.err
}

// sentID returns the id literal of a request the server sent.
func sentID(t *testing.T, msg string) string {
	t.Helper()
	var m decode.Message
	require.NoError(t, decode.Decode(&m, []byte(msg)))
	require.Equal(t, decode.KindRequest, m.Kind())
	return string(m.ID().Raw())
}

// answerWith delivers the literal response body (the members after the id) for id.
func answerWith(t *testing.T, s *Server, id, principal, body string) bool {
	t.Helper()
	src := []byte(`{"jsonrpc":"2.0","id":` + id + `,` + body + `}`)
	var m decode.Message
	require.NoError(t, s.decoder.Decode(&m, src))
	ok := s.answer(&m, principal)
	for i := range src {
		src[i] = 'x' // the transport releases the message: nothing kept may alias it
	}
	return ok
}

var mintedID = regexp.MustCompile(`^"fastmcp-[A-Za-z0-9_-]{22}"$`)

// The requests each kind sends, per revision, with <ID> for the minted id.
const (
	reqFormNew   = `{"jsonrpc":"2.0","id":<ID>,"method":"elicitation/create","params":{"mode":"form","message":"Who are you?","requestedSchema":{"type":"object","properties":{"username":{"type":"string"}},"required":["username"]}}}`
	reqFormOld   = `{"jsonrpc":"2.0","id":<ID>,"method":"elicitation/create","params":{"message":"Who are you?","requestedSchema":{"type":"object","properties":{"username":{"type":"string"}},"required":["username"]}}}`
	reqURL       = `{"jsonrpc":"2.0","id":<ID>,"method":"elicitation/create","params":{"mode":"url","message":"Authorize the tracker","url":"https://tracker.example/authorize","elicitationId":<EID>}}`
	reqSample    = `{"jsonrpc":"2.0","id":<ID>,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Say hi"}}],"maxTokens":100}}`
	reqRoots     = `{"jsonrpc":"2.0","id":<ID>,"method":"roots/list","params":{}}`
	ansElicit    = `"result":{"action":"accept","content":{"username":"testuser"}}`
	ansSample    = `"result":{"role":"assistant","content":{"type":"text","text":"This is a test response from the client"},"model":"test-model","stopReason":"endTurn"}`
	ansRoots     = `"result":{"roots":[{"uri":"file:///home/user/project","name":"project"}]}`
	capsNew      = `{"elicitation":{"form":{},"url":{}},"sampling":{"tools":{}},"roots":{}}`
	capsOld      = `{"elicitation":{},"sampling":{},"roots":{}}`
	sampleParams = `{
		"messages": [{"role": "user", "content": {"type": "text", "text": "Say hi"}}],
		"maxTokens": 100
	}`
)

var formSchema = []byte(`{"type":"object","properties":{"username":{"type":"string"}},"required":["username"]}`)

func TestBridgeRoundTrip(t *testing.T) {
	cases := []struct {
		name    string
		dialect Dialect
		caps    string // "" for unknown (stateless HTTP)
		input   InputRequest
		want    string // the request sent
		def     string // its schema definition
		answer  string
	}{
		{"form 2025-11-25", Legacy20251125, capsNew, ElicitForm("Who are you?", formSchema), reqFormNew, "ElicitRequest", ansElicit},
		{"form 2025-11-25 empty elicitation capability", Legacy20251125, `{"elicitation":{}}`, ElicitForm("Who are you?", formSchema), reqFormNew, "ElicitRequest", ansElicit},
		{"form 2025-06-18", Legacy20250618, capsOld, ElicitForm("Who are you?", formSchema), reqFormOld, "ElicitRequest", ansElicit},
		{"form capabilities unknown", Legacy20250618, "", ElicitForm("Who are you?", formSchema), reqFormOld, "ElicitRequest", ansElicit},
		{"url 2025-11-25", Legacy20251125, capsNew, ElicitURL("Authorize the tracker", "https://tracker.example/authorize"), reqURL, "ElicitRequest", `"result":{"action":"accept"}`},
		{"sampling 2025-11-25", Legacy20251125, capsNew, Sample([]byte(sampleParams)), reqSample, "CreateMessageRequest", ansSample},
		{"sampling 2025-06-18", Legacy20250618, capsOld, Sample([]byte(sampleParams)), reqSample, "CreateMessageRequest", ansSample},
		{"roots 2025-11-25", Legacy20251125, capsNew, ListRoots(), reqRoots, "ListRootsRequest", ansRoots},
		{"roots 2025-06-18", Legacy20250618, capsOld, ListRoots(), reqRoots, "ListRootsRequest", ansRoots},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newTestServer(t, nil)
				sink := newBridgeSink()
				c := &ConnState{Dialect: tc.dialect}
				if tc.caps != "" {
					c.Capabilities = []byte(tc.caps)
				}
				run := startBridge(t.Context(), s, c, sink, &InputRequired{Requests: map[string]InputRequest{"q": tc.input}})

				msg := <-sink.sent
				id := sentID(t, msg)
				assert.Regexp(t, mintedID, id)
				want := strings.ReplaceAll(tc.want, "<ID>", id)
				if eid := decode.Lookup(decode.Lookup([]byte(msg), "params").Raw(), "elicitationId"); eid.Present() {
					assert.Regexp(t, mintedID, string(eid.Raw()))
					want = strings.ReplaceAll(want, "<EID>", string(eid.Raw()))
				}
				assert.Equal(t, want, msg)
				require.NoError(t, wireschema.Validate(tc.dialect.Version(), tc.def, []byte(msg)))
				require.NoError(t, wireschema.Validate(tc.dialect.Version(), "JSONRPCRequest", []byte(msg)))
				assert.Equal(t, 1, s.outstandingRequests())

				require.True(t, answerWith(t, s, id, "", tc.answer))
				a, err := run.wait(t)
				require.NoError(t, err)
				assert.Equal(t, `{"q":`+strings.TrimPrefix(tc.answer, `"result":`)+`}`, string(a.results))
				assert.Nil(t, a.errs)
				assert.Zero(t, s.outstandingRequests())
				assert.Empty(t, sink.notifications())
			})
		})
	}
}

func TestBridgeRoundOfSeveral(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, nil)
		sink := newBridgeSink()
		ir := &InputRequired{Requests: map[string]InputRequest{
			"who":   ElicitForm("Who are you?", formSchema),
			"roots": ListRoots(),
			"hi":    Sample([]byte(sampleParams)),
		}}
		run := startBridge(t.Context(), s, sink.client(Legacy20251125, capsNew), sink, ir)
		var ids []string
		for _, method := range []string{"sampling/createMessage", "roots/list", "elicitation/create"} { // keys sorted: hi, roots, who
			msg := <-sink.sent
			assert.Contains(t, msg, `"method":"`+method+`"`)
			ids = append(ids, sentID(t, msg))
		}
		assert.Len(t, map[string]bool{ids[0]: true, ids[1]: true, ids[2]: true}, 3, "every request has its own id")
		// Answers in any order.
		require.True(t, answerWith(t, s, ids[2], "", ansElicit))
		require.True(t, answerWith(t, s, ids[0], "", ansSample))
		synctest.Wait()
		select {
		case <-run.done:
			t.Fatal("the round ended before its last answer")
		default:
		}
		require.True(t, answerWith(t, s, ids[1], "", ansRoots))
		a, err := run.wait(t)
		require.NoError(t, err)
		assert.Equal(t, `{"hi":`+ansSample[9:]+`,"roots":`+ansRoots[9:]+`,"who":`+ansElicit[9:]+`}`, string(a.results))
	})
}

func (k *bridgeSink) client(d Dialect, caps string) *ConnState {
	return &ConnState{Dialect: d, Capabilities: []byte(caps)}
}

func TestBridgeMissingCapability(t *testing.T) {
	cases := []struct {
		name    string
		dialect Dialect
		caps    string
		input   InputRequest
		data    string
	}{
		{"form without elicitation", Legacy20251125, `{"sampling":{}}`, ElicitForm("q", formSchema), `{"requiredCapabilities":{"elicitation":{"form":{}}}}`},
		{"form with url only", Legacy20251125, `{"elicitation":{"url":{}}}`, ElicitForm("q", formSchema), `{"requiredCapabilities":{"elicitation":{"form":{}}}}`},
		{"url with form only", Legacy20251125, `{"elicitation":{"form":{}}}`, ElicitURL("q", "https://x.example/"), `{"requiredCapabilities":{"elicitation":{"url":{}}}}`},
		{"url with empty elicitation", Legacy20251125, `{"elicitation":{}}`, ElicitURL("q", "https://x.example/"), `{"requiredCapabilities":{"elicitation":{"url":{}}}}`},
		{"sampling", Legacy20251125, `{"elicitation":{}}`, Sample([]byte(sampleParams)), `{"requiredCapabilities":{"sampling":{}}}`},
		{"sampling tools", Legacy20251125, `{"sampling":{}}`, Sample([]byte(`{"messages":[],"maxTokens":1,"tools":[]}`)), `{"requiredCapabilities":{"sampling":{"tools":{}}}}`},
		{"sampling toolChoice", Legacy20251125, `{"sampling":{}}`, Sample([]byte(`{"messages":[],"maxTokens":1,"toolChoice":{"mode":"auto"}}`)), `{"requiredCapabilities":{"sampling":{"tools":{}}}}`},
		{"roots", Legacy20250618, `{"sampling":{}}`, ListRoots(), `{"requiredCapabilities":{"roots":{}}}`},
		{"elicitation 2025-06-18", Legacy20250618, `{}`, ElicitForm("q", formSchema), `{"requiredCapabilities":{"elicitation":{"form":{}}}}`},
		{"every one missing is named", Legacy20251125, `{}`, ElicitForm("q", formSchema), `{"requiredCapabilities":{"elicitation":{"form":{}},"roots":{},"sampling":{}}}`},
		// The revision cannot carry it, whatever the client declared (or when unknown).
		{"url on 2025-06-18", Legacy20250618, ``, ElicitURL("q", "https://x.example/"), `{"requiredCapabilities":{"elicitation":{"url":{}}}}`},
		{"sampling tools on 2025-06-18", Legacy20250618, ``, Sample([]byte(`{"messages":[],"maxTokens":1,"tools":[]}`)), `{"requiredCapabilities":{"sampling":{"tools":{}}}}`},
		{"sampling toolChoice on 2025-06-18", Legacy20250618, capsOld, Sample([]byte(`{"messages":[],"maxTokens":1,"toolChoice":{"mode":"none"}}`)), `{"requiredCapabilities":{"sampling":{"tools":{}}}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestServer(t, nil)
			sink := newBridgeSink()
			c := &ConnState{Dialect: tc.dialect}
			if tc.caps != "" {
				c.Capabilities = []byte(tc.caps)
			}
			ir := &InputRequired{Requests: map[string]InputRequest{"q": tc.input}}
			if strings.HasPrefix(tc.name, "every") {
				ir.Requests["r"], ir.Requests["s"] = ListRoots(), Sample([]byte(sampleParams))
			}
			_, err := s.bridgeInput(t.Context(), &Request{method: "tools/call"}, c, sink, ir)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, CodeMissingCapability, e.Code)
			assert.Equal(t, "Missing required client capability", e.Message)
			assert.Equal(t, tc.data, string(e.Data))
			assert.False(t, e.Admission(), "a legacy handler's need is not a fault of the request envelope")
			assert.Empty(t, sink.sent, "nothing is sent")
			assert.Zero(t, s.outstandingRequests())
		})
	}
}

func TestBridgeIncludeContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, nil)
		params := []byte(`{"messages":[],"maxTokens":1,"includeContext":"thisServer"}`)
		ir := &InputRequired{Requests: map[string]InputRequest{"s": Sample(params)}}

		_, err := s.bridgeInput(t.Context(), &Request{method: "tools/call"}, &ConnState{Dialect: Legacy20251125, Capabilities: []byte(`{"sampling":{}}`)}, newBridgeSink(), ir)
		var e *Error
		require.ErrorAs(t, err, &e)
		assert.JSONEq(t, `{"requiredCapabilities":{"sampling":{"context":{}}}}`, string(e.Data))

		// 2025-06-18 has includeContext and no capability for it.
		sink := newBridgeSink()
		run := startBridge(t.Context(), s, sink.client(Legacy20250618, `{"sampling":{}}`), sink, ir)
		msg := <-sink.sent
		require.NoError(t, wireschema.Validate("2025-06-18", "CreateMessageRequest", []byte(msg)))
		require.True(t, answerWith(t, s, sentID(t, msg), "", ansSample))
		_, err = run.wait(t)
		require.NoError(t, err)
	})
}

func TestBridgeUnansweredEndsAtDeadline(t *testing.T) {
	for _, d := range []Dialect{Legacy20251125, Legacy20250618} {
		t.Run(d.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newTestServer(t, nil)
				sink := newBridgeSink()
				ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // fake time in the bubble
				defer cancel()
				run := startBridge(ctx, s, sink.client(d, capsOld), sink, &InputRequired{Requests: map[string]InputRequest{"q": ListRoots()}})
				id := sentID(t, <-sink.sent)
				_, err := run.wait(t)
				require.ErrorIs(t, err, context.DeadlineExceeded)
				assert.Zero(t, s.outstandingRequests())
				notes := sink.notifications()
				require.Len(t, notes, 1)
				assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+id+`,"reason":"The request timed out"}}`, notes[0])
				require.NoError(t, wireschema.Validate(d.Version(), "CancelledNotification", []byte(notes[0])))
				assert.False(t, answerWith(t, s, id, "", ansRoots), "a late answer is ignored")
			})
		})
	}
}

func TestBridgeCancelledMidRoundTrip(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, nil)
		sink := newBridgeSink()
		ctx, cancel := context.WithCancel(t.Context())
		run := startBridge(ctx, s, sink.client(Legacy20251125, capsNew), sink, &InputRequired{Requests: map[string]InputRequest{
			"a": ListRoots(), "b": ElicitForm("Who are you?", formSchema),
		}})
		first, second := sentID(t, <-sink.sent), sentID(t, <-sink.sent)
		require.True(t, answerWith(t, s, first, "", ansRoots))
		cancel()
		_, err := run.wait(t)
		require.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, []string{
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + second + `,"reason":"The request was cancelled"}}`,
		}, sink.notifications(), "only the unanswered request is cancelled")
		require.NoError(t, wireschema.Validate("2025-11-25", "CancelledNotification", []byte(sink.notifications()[0])))
		assert.Zero(t, s.outstandingRequests())
		assert.False(t, answerWith(t, s, second, "", ansElicit))
	})
}

func TestAnswerUnknownForeignRepeated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, nil)
		sink := newBridgeSink()
		ctx := WithIdentity(t.Context(), &Identity{Principal: "alice"})
		run := startBridge(ctx, s, sink.client(Legacy20251125, capsNew), sink, &InputRequired{Requests: map[string]InputRequest{"r": ListRoots()}})
		id := sentID(t, <-sink.sent)

		assert.False(t, answerWith(t, s, `"fastmcp-AAAAAAAAAAAAAAAAAAAAAA"`, "alice", ansRoots), "unknown id")
		assert.False(t, answerWith(t, s, `7`, "alice", ansRoots), "a number is never one of our ids")
		assert.False(t, answerWith(t, s, `"`+strings.Trim(id, `"`)[:10]+`"`, "alice", ansRoots), "a prefix of the id")
		assert.False(t, answerWith(t, s, id, "bob", ansRoots), "another principal")
		assert.False(t, answerWith(t, s, id, "", ansRoots), "no principal")
		synctest.Wait()
		select {
		case <-run.done:
			t.Fatal("a refused answer ended the round")
		default:
		}
		assert.Equal(t, 1, s.outstandingRequests(), "the request keeps waiting")

		require.True(t, answerWith(t, s, id, "alice", ansRoots))
		assert.False(t, answerWith(t, s, id, "alice", ansRoots), "a repeated answer")
		a, err := run.wait(t)
		require.NoError(t, err)
		assert.Equal(t, `{"r":`+ansRoots[9:]+`}`, string(a.results))

		var req decode.Message
		require.NoError(t, s.decoder.Decode(&req, []byte(`{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`)))
		assert.False(t, s.answer(&req, "alice"), "a request is not an answer")
	})
}

func TestBridgeErrorAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, nil)
		sink := newBridgeSink()
		run := startBridge(t.Context(), s, sink.client(Legacy20251125, capsNew), sink, &InputRequired{Requests: map[string]InputRequest{
			"r": ListRoots(), "s": Sample([]byte(sampleParams)), "w": ElicitForm("Who are you?", formSchema), "x": ListRoots(),
		}})
		ids := []string{sentID(t, <-sink.sent), sentID(t, <-sink.sent), sentID(t, <-sink.sent), sentID(t, <-sink.sent)}
		require.True(t, answerWith(t, s, ids[0], "", `"error":{"code":-32601,"message":"Method \"roots/list\" not found","data":{"method":"roots/list"}}`))
		require.True(t, answerWith(t, s, ids[1], "", `"error":{"code":-1,"message":"User rejected sampling request"}`))
		require.True(t, answerWith(t, s, ids[2], "", `"error":{"code":"x","message":"bad"}`))
		require.True(t, answerWith(t, s, ids[3], "", `"result":[]`))
		a, err := run.wait(t)
		require.NoError(t, err)
		assert.Nil(t, a.results)
		assert.Equal(t, map[string]*Error{
			"r": {Code: CodeMethodNotFound, Message: `Method "roots/list" not found`, Data: []byte(`{"method":"roots/list"}`)},
			"s": {Code: -1, Message: "User rejected sampling request"},
			"w": errClientAnswer,
			"x": errClientAnswer,
		}, a.errs)
	})
}

func TestBridgeMaxOutstandingRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, &Config{MaxOutstandingRequests: 2})
		sink := newBridgeSink()
		c := sink.client(Legacy20251125, capsNew)
		two := &InputRequired{Requests: map[string]InputRequest{"a": ListRoots(), "b": ListRoots()}}
		one := &InputRequired{Requests: map[string]InputRequest{"a": ListRoots()}}

		_, err := s.bridgeInput(t.Context(), &Request{method: "tools/call"}, c, sink, &InputRequired{Requests: map[string]InputRequest{
			"a": ListRoots(), "b": ListRoots(), "c": ListRoots(),
		}})
		require.ErrorIs(t, err, errInputCapacity, "a round larger than the table")
		assert.Empty(t, sink.sent)

		run := startBridge(t.Context(), s, c, sink, two)
		ids := []string{sentID(t, <-sink.sent), sentID(t, <-sink.sent)}
		_, err = s.bridgeInput(t.Context(), &Request{method: "tools/call"}, c, sink, one)
		var e *Error
		require.ErrorAs(t, err, &e, "the table is full, server-wide")
		assert.Equal(t, CodeInternalError, e.Code)
		assert.Equal(t, "Server input request capacity exhausted", e.Message)
		assert.True(t, e.Unavailable())
		assert.Empty(t, sink.sent, "nothing is sent")

		for _, id := range ids {
			require.True(t, answerWith(t, s, id, "", ansRoots))
		}
		_, err = run.wait(t)
		require.NoError(t, err)
		run = startBridge(t.Context(), s, c, sink, one)
		require.True(t, answerWith(t, s, sentID(t, <-sink.sent), "", ansRoots), "answers free the table")
		_, err = run.wait(t)
		require.NoError(t, err)
	})
}

func TestBridgeCannotWait(t *testing.T) {
	s := newTestServer(t, nil)
	sink := newBridgeSink()
	sink.cannotWait = true
	_, err := s.bridgeInput(t.Context(), &Request{method: "tools/call"}, sink.client(Legacy20251125, capsNew), sink,
		&InputRequired{Requests: map[string]InputRequest{"a": ListRoots(), "b": ListRoots()}})
	require.ErrorIs(t, err, ErrCannotWait)
	assert.Zero(t, s.outstandingRequests())
	assert.Empty(t, sink.notifications(), "nothing was sent, so nothing is cancelled")
}

func TestBridgeNotARequester(t *testing.T) {
	s := newTestServer(t, nil)
	var sink recordingSink
	_, err := s.bridgeInput(t.Context(), &Request{method: "tools/call"}, &ConnState{Dialect: Legacy20251125}, &sink,
		&InputRequired{Requests: map[string]InputRequest{"a": ListRoots()}})
	require.ErrorIs(t, err, errNoRequester)
	assert.Equal(t, "The transport cannot send requests to the client", err.(*Error).Message)
	assert.Zero(t, s.outstandingRequests())
}

func TestBridgeSinkFailsMidRound(t *testing.T) {
	s := newTestServer(t, nil)
	sink := newBridgeSink()
	broken := errors.New("broken pipe")
	var first string
	sink.onRequest = func(i int, msg string) error {
		if i == 0 {
			first = msg
			return nil
		}
		return broken
	}
	_, err := s.bridgeInput(t.Context(), &Request{method: "tools/call"}, sink.client(Legacy20251125, capsNew), sink,
		&InputRequired{Requests: map[string]InputRequest{"a": ListRoots(), "b": ListRoots()}})
	require.ErrorIs(t, err, broken)
	assert.Zero(t, s.outstandingRequests())
	assert.Equal(t, []string{
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + sentID(t, first) + `,"reason":"The server withdrew the request"}}`,
	}, sink.notifications(), "the request already sent is withdrawn")
}

func TestBridgeInvalidInput(t *testing.T) {
	s := newTestServer(t, &Config{Logger: slog.New(slog.DiscardHandler)})
	sink := newBridgeSink()
	for name, ir := range map[string]*InputRequired{
		"no requests":    {},
		"unknown method": {Requests: map[string]InputRequest{"a": {Method: "ping", Params: []byte(`{}`)}}},
		"invalid params": {Requests: map[string]InputRequest{"a": {Method: "roots/list", Params: []byte(`{`)}}},
		"array params":   {Requests: map[string]InputRequest{"a": {Method: "roots/list", Params: []byte(`[]`)}}},
	} {
		_, err := s.bridgeInput(t.Context(), &Request{method: "tools/call"}, &ConnState{Dialect: Legacy20251125}, sink, ir)
		var e *Error
		require.ErrorAs(t, err, &e, name)
		assert.Equal(t, CodeInternalError, e.Code, name)
		assert.Equal(t, "Server produced an invalid result", e.Message, name)
	}
	assert.Empty(t, sink.sent)
}

// Rounds that end unanswered, by deadline or cancellation, leave neither heap nor goroutines.
func TestBridgeUnansweredRoundsBudget(t *testing.T) {
	s := newTestServer(t, &Config{MaxOutstandingRequests: 4})
	var cancel context.CancelFunc
	sink := newBridgeSink()
	sink.onRequest = func(i int, _ string) error {
		if i%4 == 1 { // the round's second request: withdraw the round
			cancel()
		}
		return nil
	}
	c := sink.client(Legacy20251125, capsNew)
	ir := &InputRequired{Requests: map[string]InputRequest{"a": ListRoots(), "b": ElicitForm("q", formSchema)}}
	round := func(i int) {
		var ctx context.Context
		if i%2 == 0 {
			ctx, cancel = context.WithCancel(t.Context())
		} else {
			ctx, cancel = context.WithTimeout(t.Context(), 0) // already past its deadline
		}
		_, err := s.bridgeInput(ctx, &Request{method: "tools/call"}, c, sink, ir)
		cancel()
		require.True(t, isCancellation(err))
	}
	for i := range 200 { // warm up: the table's map reaches its size
		round(i)
	}
	sink.notes = nil
	goroutines := runtime.NumGoroutine()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n := 20_000
	if raceEnabled {
		n = 2_000
	}
	for i := range n {
		round(i)
		if i%1000 == 0 {
			sink.mu.Lock()
			sink.notes = sink.notes[:0] // the test's own record is not the server's heap
			sink.mu.Unlock()
		}
	}
	sink.notes = nil
	runtime.GC()
	runtime.ReadMemStats(&after)
	assert.Zero(t, s.outstandingRequests())
	assert.Equal(t, goroutines, runtime.NumGoroutine())
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	assert.Less(t, grown, int64(256<<10), "%d rounds grew the heap by %d bytes", n, grown)
}

// An answer for an id no request has is what a flood of forged answers costs: nothing.
func TestAnswerUnknownAllocs(t *testing.T) {
	s := newTestServer(t, nil)
	var m decode.Message
	require.NoError(t, s.decoder.Decode(&m, []byte(`{"jsonrpc":"2.0","id":"fastmcp-AAAAAAAAAAAAAAAAAAAAAA","result":{"roots":[]}}`)))
	allocs := testing.AllocsPerRun(100, func() {
		if s.answer(&m, "") {
			t.Fatal("answered")
		}
	})
	assert.Zero(t, allocs)
}

// A request registered and answered costs its table entry and the copy of its result.
func TestAnswerRoundTripAllocs(t *testing.T) {
	s := newTestServer(t, nil)
	round := &inputRound{done: make(chan struct{}), left: 1 << 30, answers: make([]inputAnswer, 1)}
	ids := []string{`"fastmcp-AAAAAAAAAAAAAAAAAAAAAA"`}
	var m decode.Message
	require.NoError(t, s.decoder.Decode(&m, []byte(`{"jsonrpc":"2.0","id":`+ids[0]+`,"result":{"roots":[]}}`)))
	allocs := testing.AllocsPerRun(100, func() {
		if !s.outstanding.add(ids, "", round, 1) || !s.answer(&m, "") {
			t.Fatal("not answered")
		}
	})
	assert.LessOrEqual(t, allocs, 2.0)
}

// BenchmarkAnswer measures the one-mutex table under parallel register-and-answer traffic.
func BenchmarkAnswer(b *testing.B) {
	s := newTestServer(b, nil)
	b.RunParallel(func(pb *testing.PB) {
		round := &inputRound{done: make(chan struct{}), left: 1 << 62, answers: make([]inputAnswer, 1)}
		ids := []string{mintID()}
		var m decode.Message
		if err := s.decoder.Decode(&m, []byte(`{"jsonrpc":"2.0","id":`+ids[0]+`,"result":{"roots":[]}}`)); err != nil {
			b.Error(err)
			return
		}
		for pb.Next() {
			if !s.outstanding.add(ids, "", round, 1<<30) || !s.answer(&m, "") {
				b.Error("not answered")
				return
			}
		}
	})
}

// FuzzAnswer feeds arbitrary client responses to an outstanding request: Answer never
// panics, and what it keeps is a valid copy.
func FuzzAnswer(f *testing.F) {
	for _, body := range []string{ansElicit, ansSample, ansRoots, `"result":[]`, `"result":null`,
		`"error":{"code":-32601,"message":"Method \"x\" not found","data":{"a":[1,2]}}`,
		`"error":{"code":99999999999,"message":"big"}`, `"error":{"code":1.5,"message":"m"}`, `"error":"nope"`} {
		f.Add(`{"jsonrpc":"2.0","id":"fastmcp-fuzz",` + body + `}`)
	}
	f.Add(`{"jsonrpc":"2.0","id":"fastmcp-fuzz","result":{},"error":{"code":1,"message":"both"}}`)
	f.Add(`{"jsonrpc":"2.0","id":"fastmcp-fu\u007az","result":{}}`)
	s := newTestServer(f, nil)
	f.Fuzz(func(t *testing.T, msg string) {
		src := []byte(msg)
		var m decode.Message
		if s.decoder.Decode(&m, src) != nil {
			return
		}
		round := newInputRound(1)
		require.True(t, s.outstanding.add([]string{`"fastmcp-fuzz"`}, "", round, 1))
		defer s.outstanding.withdraw([]string{`"fastmcp-fuzz"`})
		if !s.answer(&m, "") {
			return
		}
		for i := range src {
			src[i] = 0
		}
		a := round.collect([]string{"k"})
		if a.errs == nil {
			require.True(t, json.Valid(a.results), "%q", a.results)
			return
		}
		e := a.errs["k"]
		require.NotNil(t, e)
		assert.True(t, e.Data == nil || json.Valid(e.Data), "%q", e.Data)
	})
}

// FuzzAdaptInput checks the revision adaptation of arbitrary handler params: what it sends is
// one line of valid JSON, with no elicitation mode on 2025-06-18 and an elicitationId for a
// url elicitation on 2025-11-25.
func FuzzAdaptInput(f *testing.F) {
	f.Add(`{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{}}}`)
	f.Add(`{"mode":"url","message":"m","url":"https://x.example/"}`)
	f.Add(`{"mo\u0064e":"url","message":"m"}`)
	f.Add(`{ "mode" : "form" , "mode":"x" }`)
	f.Add(`{}`)
	f.Add(sampleParams)
	f.Fuzz(func(t *testing.T, params string) {
		if !json.Valid([]byte(params)) || !strings.HasPrefix(strings.TrimLeft(params, " \t\r\n"), "{") {
			return
		}
		for _, d := range []Dialect{Legacy20251125, Legacy20250618} {
			for _, method := range []string{"elicitation/create", "sampling/createMessage", "roots/list"} {
				p, err := adaptInput(d, InputRequest{Method: method, Params: []byte(params)})
				if err != nil {
					continue
				}
				require.True(t, json.Valid(p), "%s %s: %q", d, method, p)
				require.NotContains(t, string(p), "\n")
				var members map[string]json.RawMessage
				require.NoError(t, json.Unmarshal(p, &members))
				if method != "elicitation/create" {
					continue
				}
				_, hasMode := members["mode"]
				if d == Legacy20250618 {
					assert.False(t, hasMode, "%q", p)
				} else if decode.Lookup(p, "mode").String() == "url" { // the first of duplicate keys, the one adaptInput read
					assert.Contains(t, members, "elicitationId", "%q", p)
				}
			}
		}
	})
}

// confirmServer has a tool that asks the user to confirm, as an initialize-era client sees it
// through the core (transport.Endpoint.Serve).
func confirmServer(t *testing.T, cfg *Config) *Server {
	s := newTestServer(t, cfg)
	s.AddRawTool(Tool{Name: "confirm", Description: "Asks for confirmation", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, r *Request, _ json.RawMessage) (ToolResult, error) {
			var a struct {
				Action  string
				Content struct{ Username string }
			}
			ok, err := r.InputResponse("who", &a)
			switch {
			case err != nil:
				return ToolResult{Text: "refused: " + err.Error(), IsError: true}, nil
			case !ok:
				return ToolResult{}, &InputRequired{Requests: map[string]InputRequest{"who": ElicitForm("Who are you?", formSchema)}}
			}
			return ToolResult{Text: a.Action + ": " + a.Content.Username}, nil
		})
	return s
}

// handleLegacyAsync serves one literal request through the core (transport.Endpoint.Serve) on its own goroutine.
func handleLegacyAsync(ctx context.Context, t *testing.T, s *Server, c *ConnState, sink Sink, req string) <-chan Reply {
	var m decode.Message
	require.NoError(t, s.decoder.Decode(&m, []byte(req)))
	out := make(chan Reply, 1)
	go func() { out <- s.testHandleLegacy(ctx, &m, c, sink, nil) }()
	return out
}

const callConfirm = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"confirm","arguments":{}}}`

func TestServeLegacyBridgesElicitation(t *testing.T) {
	for _, tc := range []struct {
		dialect Dialect
		caps    string
		want    string
		answer  string
		result  string
	}{
		{Legacy20251125, capsNew, reqFormNew, ansElicit, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"accept: testuser"}]}}`},
		{Legacy20250618, "", reqFormOld, `"result":{"action":"decline"}`, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"decline: "}]}}`},
		{Legacy20251125, "", reqFormNew, `"error":{"code":-32601,"message":"Method not found"}`, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"refused: fastmcp: Method not found (-32601)"}],"isError":true}}`},
	} {
		t.Run(tc.dialect.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := confirmServer(t, nil)
				sink := newBridgeSink()
				c := &ConnState{Dialect: tc.dialect, LogLevel: LogOff}
				if tc.caps != "" {
					c.Capabilities = []byte(tc.caps)
				}
				reply := handleLegacyAsync(t.Context(), t, s, c, sink, callConfirm)
				msg := <-sink.sent
				id := sentID(t, msg)
				assert.Equal(t, strings.ReplaceAll(tc.want, "<ID>", id), msg)
				rev := tc.dialect.Version()
				require.NoError(t, wireschema.Validate(rev, "ElicitRequest", []byte(msg)))
				require.NoError(t, wireschema.Validate(rev, "JSONRPCRequest", []byte(msg)))

				require.True(t, answerWith(t, s, id, "", tc.answer))
				r := <-reply
				assert.Equal(t, tc.result, string(r.Body))
				require.NoError(t, wireschema.Validate(rev, "CallToolResult", []byte(decode.Lookup(r.Body, "result").Raw())))
				require.NoError(t, wireschema.Validate(rev, "JSONRPCResponse", r.Body))
				assert.Zero(t, s.outstandingRequests())
			})
		})
	}
}

func TestServeLegacyRerunsWhereItCanWait(t *testing.T) {
	s := confirmServer(t, nil)
	sink := newBridgeSink()
	sink.cannotWait = true
	r := <-handleLegacyAsync(t.Context(), t, s, &ConnState{Dialect: Legacy20251125, LogLevel: LogOff}, sink, callConfirm)
	assert.Equal(t, Reply{Rerun: true}, r)
	assert.Zero(t, s.outstandingRequests())
	assert.Empty(t, sink.notifications())
}

func TestServeLegacyUnansweredEndsAtDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := confirmServer(t, nil)
		sink := newBridgeSink()
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // fake time in the bubble
		defer cancel()
		reply := handleLegacyAsync(ctx, t, s, &ConnState{Dialect: Legacy20250618, LogLevel: LogOff}, sink, callConfirm)
		id := sentID(t, <-sink.sent)
		r := <-reply
		assert.Nil(t, r.Body, "the request's context ended: no response")
		notes := sink.notifications()
		require.Len(t, notes, 1)
		assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+id+`,"reason":"The request timed out"}}`, notes[0])
		require.NoError(t, wireschema.Validate("2025-06-18", "CancelledNotification", []byte(notes[0])))
		require.NoError(t, wireschema.Validate("2025-06-18", "JSONRPCNotification", []byte(notes[0])))
		assert.Zero(t, s.outstandingRequests())
	})
}
