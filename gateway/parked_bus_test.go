package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/bus/bustest"
	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// sharedBusReplicas starts two gateway replicas in front of backend url, sharing a state key
// and a bus (the in-memory backend of package bustest, which runs the real relay).
func sharedBusReplicas(t *testing.T, url string, cfg Config) (gA, gB *Gateway, urlA, urlB string) {
	t.Helper()
	m := bustest.NewMemory()
	busA, busB := m.Open(0), m.Open(0)
	t.Cleanup(busB.Close)
	t.Cleanup(busA.Close)
	cfg.Backends = []Backend{{Name: "solo", URL: url}}
	gA, urlA = startGatewayWith(t, &fastmcp.Config{StateKey: stateKey, EventBus: busA}, cfg)
	gB, urlB = startGatewayWith(t, &fastmcp.Config{StateKey: stateKey, EventBus: busB}, cfg)
	return gA, gB, urlA, urlB
}

// newTwoQuestionServer is a backend whose tool "confirm" asks for a name ("who"), then
// whether to go on ("sure"), the name kept in its state, and answers "hello NAME (sure:
// ACTION)".
// Its tool "hold" asks for the name, then holds until its context ends (reported on p).
func newTwoQuestionServer(t testing.TB, p *probe) *fastmcp.Server {
	srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "input", Version: "1"}, &fastmcp.Config{Dialects: []fastmcp.Dialect{fastmcp.Legacy20251125}})
	require.NoError(t, err)
	schema := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)
	fastmcp.AddTool(srv, fastmcp.Tool{Name: "confirm", Description: "asks twice"},
		func(ctx context.Context, r *fastmcp.Request, in struct{}) (fastmcp.ToolResult, error) {
			var who, sure struct {
				Action  string `json:"action"`
				Content struct {
					Name string `json:"name"`
				} `json:"content"`
			}
			if len(r.State()) == 0 { // the first round: the name, kept in the state
				if ok, err := r.InputResponse("who", &who); err != nil || !ok {
					return fastmcp.ToolResult{}, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{"who": fastmcp.ElicitForm("Name?", schema)}}
				}
				return fastmcp.ToolResult{}, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{"sure": fastmcp.ElicitForm("Sure?", schema)}, State: []byte(who.Content.Name)}
			}
			if ok, err := r.InputResponse("sure", &sure); err != nil || !ok {
				return fastmcp.ToolResult{}, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{"sure": fastmcp.ElicitForm("Sure?", schema)}, State: r.State()}
			}
			return fastmcp.ToolResult{Text: "hello " + string(r.State()) + " (sure: " + sure.Action + ")"}, nil
		})
	fastmcp.AddTool(srv, fastmcp.Tool{Name: "hold", Description: "asks, then holds until cancelled"},
		func(ctx context.Context, r *fastmcp.Request, in struct{}) (fastmcp.ToolResult, error) {
			if ok, err := r.InputResponse("who", new(json.RawMessage)); err != nil || !ok {
				return fastmcp.ToolResult{}, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{"who": fastmcp.ElicitForm("Name?", schema)}}
			}
			p.started <- struct{}{}
			<-ctx.Done()
			p.cancelled <- struct{}{}
			return fastmcp.ToolResult{}, ctx.Err()
		})
	return srv
}

// TestWireLegacyBackendResumedAcrossReplicas: with a shared bus, the retry of a call parked
// on replica A lands on replica B and completes there, A's backend request answered; the
// state then names an ended call on either replica, and nothing stays parked.
func TestWireLegacyBackendResumedAcrossReplicas(t *testing.T) {
	url, _ := serveHTTP(t, newInputServer(t, nil, fastmcp.Legacy20251125), "", nil)
	gA, gB, urlA, urlB := sharedBusReplicas(t, url, Config{})

	_, body := post(t, urlA, "tools/call", "confirm", confirmCall("1", ""))
	state := stateOf(t, body)
	require.Equal(t, 1, gA.parking.waiting())

	_, body = post(t, urlB, "tools/call", "confirm", confirmCall("2", answer("elicitation_1", state)))
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"hello Alice (asked)"}],`+gwMeta+`}}`, body)
	assert.Equal(t, 0, gA.parking.waiting())
	assert.Equal(t, 0, gB.parking.waiting())

	for _, u := range []string{urlA, urlB} {
		_, body = post(t, u, "tools/call", "confirm", confirmCall("3", answer("elicitation_1", state)))
		assert.Equal(t, `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: the backend request waiting for this input has ended (answered, expired or cancelled)"}}`, body)
	}
}

// TestWireLegacyBackendRoundsAcrossReplicas: a backend that asks twice; the first retry
// lands on B (the call parked on A asks again, and stays parked on A), the second on B
// too, and the call completes with both answers.
func TestWireLegacyBackendRoundsAcrossReplicas(t *testing.T) {
	url, _ := serveHTTP(t, newTwoQuestionServer(t, newProbe()), "", nil)
	gA, _, urlA, urlB := sharedBusReplicas(t, url, Config{})

	_, body := post(t, urlA, "tools/call", "confirm", confirmCall("1", ""))
	state := stateOf(t, body)
	_, body = post(t, urlB, "tools/call", "confirm", confirmCall("2", answer("elicitation_1", state)))
	state2 := stateOf(t, body)
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","inputRequests":{"elicitation_2":{"method":"elicitation/create","params":{"mode":"form","message":"Sure?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}},"requestState":"`+state2+`",`+gwMeta+`}}`, body)
	assert.Equal(t, 1, gA.parking.waiting(), "the call stays parked where it runs")

	// A retry that answers nothing is asked again.
	_, body = post(t, urlB, "tools/call", "confirm", confirmCall("3", `"requestState":"`+state2+`",`))
	state3 := stateOf(t, body)
	assert.Contains(t, body, `"elicitation_2":`)

	_, body = post(t, urlB, "tools/call", "confirm", confirmCall("4", answer("elicitation_2", state3)))
	assert.Equal(t, `{"jsonrpc":"2.0","id":4,"result":{"resultType":"complete","content":[{"type":"text","text":"hello Alice (sure: accept)"}],`+gwMeta+`}}`, body)
	assert.Equal(t, 0, gA.parking.waiting())
}

// TestWireParkingReplicaGone: the replica that parked the call is closed; a retry on the
// other gets the documented -32603 once ConnectTimeout passes without a "held".
func TestWireParkingReplicaGone(t *testing.T) {
	url, _ := serveHTTP(t, newInputServer(t, nil, fastmcp.Legacy20251125), "", nil)
	gA, _, urlA, urlB := sharedBusReplicas(t, url, Config{ConnectTimeout: 2 * time.Second})

	_, body := post(t, urlA, "tools/call", "confirm", confirmCall("1", ""))
	state := stateOf(t, body)
	require.NoError(t, gA.Close())

	_, body = post(t, urlB, "tools/call", "confirm", confirmCall("2", answer("elicitation_1", state)))
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"The gateway replica holding the backend request waiting for this input did not answer"}}`, body)
}

// TestRelayMessageOutcomes: every outcome a parked call can have survives the bus as
// legacyCall returns it.
func TestRelayMessageOutcomes(t *testing.T) {
	for name, tc := range map[string]struct {
		v   any
		err error
	}{
		"tool":  {v: toolResultOf(`{"content":[{"type":"text","text":"x"}],"isError":true}`)},
		"raw":   {v: json.RawMessage(`{"contents":[]}`)},
		"error": {err: fastmcp.NewError(-32001, "nope", json.RawMessage(`{"a":1}`))},
		"input": {err: &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{"k": {Method: "roots/list", Params: json.RawMessage(`{}`)}}, State: []byte{2, 0, 1}}},
	} {
		t.Run(name, func(t *testing.T) {
			var m relayMessage
			m.setOutcome(tc.v, tc.err)
			data, err := json.Marshal(m)
			require.NoError(t, err)
			var back relayMessage
			require.NoError(t, json.Unmarshal(data, &back))
			v, err := back.outcome()
			assert.Equal(t, tc.v, v)
			assert.Equal(t, tc.err, err)
		})
	}
}

// toolResultOf is the client's tools/call result for raw.
func toolResultOf(raw string) *client.CallToolResult {
	return &client.CallToolResult{Raw: json.RawMessage(raw), Content: json.RawMessage(`[{"type":"text","text":"x"}]`), IsError: true}
}

// TestWireRetryCallerGoneAcrossReplicas: the caller of a retry carried to the parking
// replica goes away while the backend works on the answer: the backend's call is cancelled
// there, and nothing stays parked or running.
func TestWireRetryCallerGoneAcrossReplicas(t *testing.T) {
	p := newProbe()
	url, _ := serveHTTP(t, newTwoQuestionServer(t, p), "", nil)
	// InputTimeout far past the test's own wait: only the caller's going away ends the call.
	gA, _, urlA, urlB := sharedBusReplicas(t, url, Config{InputTimeout: time.Hour})

	_, body := post(t, urlA, "tools/call", "hold", strings.Replace(confirmCall("1", ""), `"confirm"`, `"hold"`, 1))
	state := stateOf(t, body)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	retry := strings.Replace(confirmCall("2", answer("elicitation_1", state)), `"confirm"`, `"hold"`, 1)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, urlB, strings.NewReader(retry))
	require.NoError(t, err)
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "hold"} {
		req.Header.Set(k, v)
	}
	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	<-p.started // the backend got the answer and holds
	cancel()
	<-done
	select {
	case <-p.cancelled: // the backend's call was cancelled, on replica A
	case <-time.After(20 * time.Second):
		t.Fatal("the backend's call was not cancelled")
	}
	waitFor(t, "replica A to let go of the retry", func() bool {
		gA.replicas.mu.Lock()
		defer gA.replicas.mu.Unlock()
		return len(gA.replicas.running) == 0 && gA.parking.waiting() == 0
	})
}
