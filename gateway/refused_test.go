package gateway

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/streamable"
)

// TestBackendRefusesOneTool: a backend that refuses the Gateway's credential for one tool
// (403 with an insufficient_scope challenge) gives that tool's caller the refusal, byte for
// byte, and nothing else changes: the backend stays up, its breaker closed however many
// such calls come, and its other tools answer. With credentials or without.
func TestBackendRefusesOneTool(t *testing.T) {
	for name, creds := range map[string]string{
		"static":         `,"headers":{"Authorization":"env:GW_TEST_AUTH"}`,
		"no credentials": ``,
	} {
		t.Run(name, func(t *testing.T) {
			var cfg streamable.ListenerConfig
			cfg.RequestGate = func(ctx context.Context, r streamable.GateRequest) (streamable.GateDecision, error) {
				if v := r.Header.Values("Mcp-Name"); len(v) > 0 && string(v[0]) == "fail" {
					return streamable.GateDecision{Response: &streamable.GateResponse{Status: 403, ContentType: "application/json",
						Header: map[string]string{"WWW-Authenticate": `Bearer error="insufficient_scope", scope="admin"`},
						Body:   []byte(`{"error":"insufficient_scope"}`)}}, nil
				}
				return streamable.GateDecision{}, nil
			}
			url, _ := serveHTTPWith(t, newBackendServer("a", nil), cfg, nil)
			t.Setenv("GW_TEST_AUTH", "Bearer backend-own")
			bs, err := ParseConfig([]byte(`{"backends":[{"name":"a","url":"` + url + `"` + creds + `}]}`))
			require.NoError(t, err)
			g, gw := startGateway(t, Config{Backends: bs})
			require.True(t, g.Status()[0].Up, "%v", g.Status()[0].Err)

			for range 2 * DefaultBreakerFailures {
				status, body := post(t, gw, "tools/call", "fail",
					`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fail","arguments":{},`+wireMeta+`}}`)
				require.Equal(t, 200, status)
				assert.Equal(t, `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Backend \"a\" refused the gateway's authorization for this request","data":{"backend":"a"}}}`, body)
			}
			st := g.Status()[0]
			assert.True(t, st.Up)
			assert.Equal(t, BreakerClosed, st.Breaker)
			assert.Equal(t, 1, st.Connections, "not reconnected")
			assert.Contains(t, callEcho(t, gw), `"text":"a: t"`)
		})
	}
}
