package streamable

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

const serverInfo = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"test","version":"1.0.0"}}`

func TestToolsCallJSON(t *testing.T) {
	s := startServer(t, newCore(t), ListenerConfig{})
	resp, body := exchange(t, s, post(s, call("1", "echo", `{"text":"hi"}`), callHeaders("echo")...))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"hi"}],`+serverInfo+`}}`, body)
}
