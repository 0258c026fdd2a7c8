package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// newInputServer is a backend whose tool "confirm" asks the caller's name with a form
// elicitation (key "who", its own state "asked") and answers "hello NAME (asked)"; its
// context ending is reported on p.cancelled. Served initialize-era, the core turns the
// question into an elicitation/create request to the gateway.
func newInputServer(t testing.TB, p *probe, dialects ...fastmcp.Dialect) *fastmcp.Server {
	srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "input", Version: "1"}, &fastmcp.Config{Dialects: dialects})
	require.NoError(t, err)
	fastmcp.AddTool(srv, fastmcp.Tool{Name: "confirm", Description: "asks a name"},
		func(ctx context.Context, r *fastmcp.Request, in struct{}) (fastmcp.ToolResult, error) {
			var ans struct {
				Action  string `json:"action"`
				Content struct {
					Name string `json:"name"`
				} `json:"content"`
			}
			ok, err := r.InputResponse("who", &ans)
			if err != nil {
				return fastmcp.ToolResult{}, err
			}
			if !ok {
				if p != nil {
					context.AfterFunc(ctx, func() { p.cancelled <- struct{}{} })
				}
				return fastmcp.ToolResult{}, &fastmcp.InputRequired{
					Requests: map[string]fastmcp.InputRequest{"who": fastmcp.ElicitForm("Name?", json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`))},
					State:    []byte("asked"),
				}
			}
			return fastmcp.ToolResult{Text: "hello " + ans.Content.Name + " (" + string(r.State()) + ")"}, nil
		})
	return srv
}

const (
	askMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}`
	gwMeta  = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"gateway","version":"1"}}`
	askForm = `{"method":"elicitation/create","params":{"mode":"form","message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}`
)

var stateKey = bytes.Repeat([]byte{9}, 32)

func confirmCall(id, extra string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"confirm","arguments":{},` + extra + askMeta + `}}`
}

// stateOf reads an input_required result's requestState.
func stateOf(t testing.TB, body string) string {
	t.Helper()
	var res struct {
		Result struct {
			RequestState string `json:"requestState"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &res), body)
	require.NotEmpty(t, res.Result.RequestState, body)
	return res.Result.RequestState
}

func answer(key, state string) string {
	return `"inputResponses":{"` + key + `":{"action":"accept","content":{"name":"Alice"}}},"requestState":"` + state + `",`
}

// TestWireModernInputRelayed: a 2026-07-28 backend's input_required reaches the caller with
// its inputRequests unchanged and the gateway's own sealed requestState; the retry, sent to
// another gateway replica sharing the state key, reaches the backend with the caller's
// answer and the backend's own state, and completes.
func TestWireModernInputRelayed(t *testing.T) {
	url, _ := serveHTTP(t, newInputServer(t, nil), "", nil)
	cfg := Config{Backends: []Backend{{Name: "solo", URL: url}}}
	_, gwA := startGatewayWith(t, &fastmcp.Config{StateKey: stateKey}, cfg)
	_, gwB := startGatewayWith(t, &fastmcp.Config{StateKey: stateKey}, cfg)

	_, body := post(t, gwA, "tools/call", "confirm", confirmCall("1", ""))
	state := stateOf(t, body)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"who":`+askForm+`},"requestState":"`+state+`",`+gwMeta+`}}`, body)

	_, body = post(t, gwB, "tools/call", "confirm", confirmCall("2", answer("who", state)))
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"hello Alice (asked)"}],`+gwMeta+`}}`, body)

	// A caller that cannot answer gets the backend's -32021 with its requiredCapabilities.
	_, body = post(t, gwA, "tools/call", "confirm", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"confirm","arguments":{},`+wireMeta+`}}`)
	assert.Equal(t, `{"jsonrpc":"2.0","id":3,"error":{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"elicitation":{"form":{}}}}}}`, body)
}

// TestWireLegacyBackendInput: an initialize-era backend's elicitation/create, sent during a
// call, reaches a 2026-07-28 caller as input_required (key "elicitation_1"); the retry's
// answer resumes the backend's waiting request, and the call completes. The state cannot
// be used twice, and no call stays parked.
func TestWireLegacyBackendInput(t *testing.T) {
	url, _ := serveHTTP(t, newInputServer(t, nil, fastmcp.Legacy20251125), "", nil)
	g, gw := startGateway(t, Config{Backends: []Backend{{Name: "solo", URL: url}}})

	_, body := post(t, gw, "tools/call", "confirm", confirmCall("1", ""))
	state := stateOf(t, body)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"elicitation_1":`+askForm+`},"requestState":"`+state+`",`+gwMeta+`}}`, body)
	assert.Equal(t, 1, g.parking.waiting())

	_, body = post(t, gw, "tools/call", "confirm", confirmCall("2", answer("elicitation_1", state)))
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"hello Alice (asked)"}],`+gwMeta+`}}`, body)
	assert.Equal(t, 0, g.parking.waiting())

	_, body = post(t, gw, "tools/call", "confirm", confirmCall("3", answer("elicitation_1", state)))
	assert.Equal(t, `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: the backend request waiting for this input has ended (answered, expired or cancelled)"}}`, body)

	// A caller that declares no elicitation: the backend's request is refused, the call
	// goes on (this backend then fails it) and nothing is parked.
	_, body = post(t, gw, "tools/call", "confirm", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"confirm","arguments":{},`+wireMeta+`}}`)
	assert.Contains(t, body, `"id":4,`)
	assert.NotContains(t, body, `input_required`)
	assert.Equal(t, 0, g.parking.waiting())
}

// TestWireLegacyBackendOtherReplica: the parked call lives on the replica that parked it;
// a retry on another replica (same state key, so the state opens) is refused with -32602
// naming why, and the call still waits on its own replica for a retry there.
func TestWireLegacyBackendOtherReplica(t *testing.T) {
	url, _ := serveHTTP(t, newInputServer(t, nil, fastmcp.Legacy20251125), "", nil)
	cfg := Config{Backends: []Backend{{Name: "solo", URL: url}}}
	_, gwA := startGatewayWith(t, &fastmcp.Config{StateKey: stateKey}, cfg)
	_, gwB := startGatewayWith(t, &fastmcp.Config{StateKey: stateKey}, cfg)

	_, body := post(t, gwA, "tools/call", "confirm", confirmCall("1", ""))
	state := stateOf(t, body)
	_, body = post(t, gwB, "tools/call", "confirm", confirmCall("2", answer("elicitation_1", state)))
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params: the backend request waiting for this input is held by another gateway replica"}}`, body)
	_, body = post(t, gwA, "tools/call", "confirm", confirmCall("3", answer("elicitation_1", state)))
	assert.Contains(t, body, `"text":"hello Alice (asked)"`)
}

// TestParkedCallLimits: MaxParkedCalls refuses the call past it with the documented error
// (and cancels that backend call); InputTimeout cancels a parked call whose caller never
// retries, and its late retry is refused.
func TestParkedCallLimits(t *testing.T) {
	p := newProbe()
	url, _ := serveHTTP(t, newInputServer(t, p, fastmcp.Legacy20251125), "", nil)
	g, gw := startGateway(t, Config{Backends: []Backend{{Name: "solo", URL: url}}, MaxParkedCalls: 1, InputTimeout: time.Hour})

	_, body := post(t, gw, "tools/call", "confirm", confirmCall("1", ""))
	state := stateOf(t, body)
	_, body = post(t, gw, "tools/call", "confirm", confirmCall("2", ""))
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Too many backend requests waiting for input"}}`, body)
	<-p.cancelled // the refused call's backend request ended
	_, body = post(t, gw, "tools/call", "confirm", confirmCall("3", answer("elicitation_1", state)))
	assert.Contains(t, body, `"text":"hello Alice (asked)"`)

	g2, gw2 := startGateway(t, Config{Backends: []Backend{{Name: "solo", URL: url}}, InputTimeout: time.Millisecond})
	_, body = post(t, gw2, "tools/call", "confirm", confirmCall("4", ""))
	state = stateOf(t, body)
	<-p.cancelled // the backend's call was cancelled by the timeout
	waitFor(t, "the parked call to be dropped", func() bool { return g2.parking.waiting() == 0 })
	_, body = post(t, gw2, "tools/call", "confirm", confirmCall("5", answer("elicitation_1", state)))
	assert.Equal(t, `{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"Invalid params: the backend request waiting for this input has ended (answered, expired or cancelled)"}}`, body)
	assert.Equal(t, 0, g.parking.waiting())
}

// TestLegacyCallerModernBackend: an initialize-era caller of a 2026-07-28 backend's tool
// that asks for input gets a real elicitation/create request (the core's bridge, on the
// gateway's relayed InputRequired), and its answer completes the call.
func TestLegacyCallerModernBackend(t *testing.T) {
	url, _ := serveHTTP(t, newInputServer(t, nil, fastmcp.Modern), "", nil)
	_, gw := startGateway(t, Config{Backends: []Backend{{Name: "solo", URL: url}}})
	asked := make(chan json.RawMessage, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, gw, client.Config{Era: client.EraLegacy, Elicitation: func(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
		asked <- params
		return json.RawMessage(`{"action":"accept","content":{"name":"Bob"}}`), nil
	}})
	require.NoError(t, err)
	defer c.Close()
	res, err := c.CallTool(ctx, "confirm", nil)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"text","text":"hello Bob (asked)"}]`, string(res.Content))
	assert.JSONEq(t, `{"mode":"form","message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}`, string(<-asked))
}
