package streamable

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// startCounted is startStack with the stack's refusal counts.
func startCounted(t *testing.T, stack string, core *fastmcp.Server, cfg ListenerConfig) (addr string, refusals func() Refusals) {
	t.Helper()
	switch stack {
	case stackNative:
		s := startServer(t, core, cfg)
		return hostOf(s), s.Refusals
	case stackFastHTTP:
		a, h := startMounted(t, core, cfg.Config)
		return a, h.Refusals
	}
	h, err := NewHandler(core, cfg.Config)
	require.NoError(t, err)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.Close()
		require.NoError(t, h.Close(context.Background()))
	})
	return ts.Listener.Addr().String(), h.Refusals
}

// TestRefusalsCounted checks on every stack that a body over MaxBodyBytes and a head over
// MaxHeaderBytes are counted by limit, and that an answered request is not.
func TestRefusalsCounted(t *testing.T) {
	const maxHead, maxBody = 1024, 250
	for _, stack := range bothStacks {
		t.Run(stack, func(t *testing.T) {
			addr, refusals := startCounted(t, stack, newCore(t), ListenerConfig{Config: Config{MaxHeaderBytes: maxHead, MaxBodyBytes: maxBody}})
			send := func(raw string) int {
				c := dialAt(t, addr)
				require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
				_, err := io.WriteString(c, raw)
				require.NoError(t, err)
				resp, _ := readResponse(t, bufio.NewReader(c))
				return resp.StatusCode
			}
			assert.Equal(t, http.StatusOK, send(postTo(addr, list("1"), "Mcp-Method: tools/list")))
			assert.Equal(t, Refusals{}, refusals())
			assert.Equal(t, http.StatusRequestEntityTooLarge, send(postTo(addr, strings.Repeat(" ", maxBody+1))))
			assert.Equal(t, http.StatusRequestHeaderFieldsTooLarge, send(postTo(addr, list("2"), "X-Big: "+strings.Repeat("h", maxHead))))
			assert.Equal(t, Refusals{BodyTooLarge: 1, HeaderTooLarge: 1}, refusals())
			assert.Equal(t, http.StatusBadRequest, send(postTo(addr, `{"jsonrpc":"2.0","id":1,"method":`)))
			assert.Equal(t, Refusals{BodyTooLarge: 1, HeaderTooLarge: 1, Undecodable: 1}, refusals())
		})
	}
}

// TestSinksNameTCP checks that the sinks Streamable HTTP serves requests with name their
// network transport for an Observer.
func TestSinksNameTCP(t *testing.T) {
	assert.Equal(t, fastmcp.NetworkTCP, (&job{}).NetworkTransport())
	assert.Equal(t, fastmcp.NetworkTCP, (&streamSink{}).NetworkTransport())
}
