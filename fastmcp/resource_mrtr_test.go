package fastmcp

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// addConfirmResource registers a resource (and a template) that asks the client to confirm
// before they are read, keeping their own state across the round trip.
func addConfirmResource(s *Server) {
	read := func(r *Request, uri string) ([]ResourceContents, error) {
		var answer struct {
			Action  string `json:"action"`
			Content struct {
				OK bool `json:"ok"`
			} `json:"content"`
		}
		if ok, err := r.InputResponse("confirm", &answer); err != nil {
			return nil, err
		} else if !ok {
			return nil, &InputRequired{
				Requests: map[string]InputRequest{"confirm": ElicitForm("Read "+uri+"?",
					json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`))},
				State: []byte("round-1"),
			}
		}
		text := answer.Action + " ok=" + map[bool]string{true: "true", false: "false"}[answer.Content.OK] + " state=" + string(r.State())
		return []ResourceContents{{Text: text}}, nil
	}
	s.AddResource(Resource{URI: "test://confirm", Name: "confirm", MimeType: "text/plain"},
		func(_ context.Context, r *Request, uri string) ([]ResourceContents, error) { return read(r, uri) })
	s.AddResource(Resource{URI: "test://confirm-too", Name: "confirm-too"},
		func(_ context.Context, r *Request, uri string) ([]ResourceContents, error) { return read(r, uri) })
	s.AddResourceTemplate(ResourceTemplate{URITemplate: "test://confirm/{n}", Name: "confirm-n"},
		func(_ context.Context, r *Request, uri string, _ map[string]string) ([]ResourceContents, error) {
			return read(r, uri)
		})
}

func TestResourceInputRequiredRoundTrip(t *testing.T) {
	s := newTestServer(t, &Config{ResourcesCache: CacheHint{TTL: 3 * time.Millisecond}})
	addConfirmResource(s)
	addTestPrompts(s)
	// A prompt's state, sealed by the same server for prompts/get.
	pstate := resultMember(t, dispatch(t, s, mrtrReq(9, "prompts/get", `"name":"test_input_required_result_prompt"`)), "requestState")
	ask := func(uri string) string {
		return `"inputRequests":{"confirm":{"method":"elicitation/create","params":{"mode":"form","message":"Read ` + uri + `?",` +
			`"requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}}}}`
	}

	round1 := dispatch(t, s, mrtrReq(1, "resources/read", `"uri":"test://confirm"`))
	state := resultMember(t, round1, "requestState")
	require.NotEmpty(t, state)
	// input_required results carry no ttlMs or cacheScope.
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required",`+ask("test://confirm")+`,"requestState":"`+state+`",`+serverInfoMeta+`}}`, round1)
	requireWire(t, "ReadResourceResult", round1)

	answer := `"inputResponses":{"confirm":{"action":"accept","content":{"ok":true}}}`
	round2 := dispatch(t, s, mrtrReq(2, "resources/read", `"uri":"test://confirm",`+answer+`,"requestState":"`+state+`"`))
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","contents":[{"uri":"test://confirm","mimeType":"text/plain","text":"accept ok=true state=round-1"}],`+
		`"ttlMs":3,"cacheScope":"private",`+serverInfoMeta+`}}`, round2)
	requireWire(t, "ReadResourceResult", round2)

	// Templates bind the state to the concrete URI.
	t1 := dispatch(t, s, mrtrReq(3, "resources/read", `"uri":"test://confirm/1"`))
	tstate := resultMember(t, t1, "requestState")
	assert.Contains(t, t1, ask("test://confirm/1"))
	t2 := dispatch(t, s, mrtrReq(4, "resources/read", `"uri":"test://confirm/1","inputResponses":{"confirm":{"action":"decline"}},"requestState":"`+tstate+`"`))
	assert.Equal(t, `{"jsonrpc":"2.0","id":4,"result":{"resultType":"complete","contents":[{"uri":"test://confirm/1","text":"decline ok=false state=round-1"}],`+
		`"ttlMs":3,"cacheScope":"private",`+serverInfoMeta+`}}`, t2)

	invalid := `{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"Invalid or expired request state"}}`
	tests := []struct{ name, params string }{
		{"tampered state", `"uri":"test://confirm",` + answer + `,"requestState":"` + state + `-TAMPERED"`},
		{"state of another resource", `"uri":"test://confirm-too",` + answer + `,"requestState":"` + state + `"`},
		{"state of another template URI", `"uri":"test://confirm/2",` + answer + `,"requestState":"` + tstate + `"`},
		{"state of a prompt", `"uri":"test://confirm",` + answer + `,"requestState":"` + pstate + `"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := dispatch(t, s, mrtrReq(5, "resources/read", tc.params))
			assert.Equal(t, invalid, got)
			requireWire(t, "ReadResourceResult", got)
		})
	}
	t.Run("requestState not a string", func(t *testing.T) {
		got := dispatch(t, s, mrtrReq(6, "resources/read", `"uri":"test://confirm","requestState":1`))
		assert.Equal(t, `{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"Invalid params: requestState must be a string"}}`, got)
	})
}
