package streamable

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// TestStepUp checks Config.StepUp on every stack: it replaces an initialize-era error reply
// with its response, never a 2026-07-28 one (the gate answers those before the body) nor a
// result; a nil answer or a panic keeps the JSON-RPC error.
func TestStepUp(t *testing.T) {
	stepUp := func(e *fastmcp.Error) *GateResponse {
		switch e.Message {
		case "Unknown tool: panics":
			panic("step-up bug")
		case "Unknown tool: nil":
			return nil
		}
		return &GateResponse{Status: http.StatusForbidden, ContentType: "text/plain", Header: map[string]string{"X-Step": strconv.Itoa(int(e.Code))}, Body: []byte("step up")}
	}
	legacyCall := func(addr, tool string) string {
		body := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
		return "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
			"MCP-Protocol-Version: 2025-11-25\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	}
	for _, stack := range bothStacks {
		t.Run(stack, func(t *testing.T) {
			addr, _ := startStack(t, stack, newCore(t), ListenerConfig{Config: Config{StepUp: stepUp}})
			resp, body := exchangeAt(t, addr, legacyCall(addr, "missing"))
			assert.Equal(t, http.StatusForbidden, resp.StatusCode)
			assert.Equal(t, "-32602", resp.Header.Get("X-Step"))
			assert.Equal(t, "step up", body)
			for _, tool := range []string{"nil", "panics"} {
				resp, body = exchangeAt(t, addr, legacyCall(addr, tool))
				assert.Equal(t, http.StatusOK, resp.StatusCode, tool)
				assert.Contains(t, body, `"code":-32602`, tool)
			}
			resp, body = exchangeAt(t, addr, legacyCall(addr, "echo"))
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Contains(t, body, `"result"`)
			resp, body = exchangeAt(t, addr, postTo(addr, call("4", "missing", `{}`), callHeaders("missing")...))
			require.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Contains(t, body, `"code":-32602`)
		})
	}
}
