package streamable

import (
	"bufio"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The mounted handler remembers a chunked head only for the request it belongs to: clients
// that send a chunked head and go away mid-body leave at most one entry per request context
// fasthttp made, and the next request on a context sees none of it (an over-limit POST gets
// 413, not 411).
func TestMountChunkedStateBounded(t *testing.T) {
	addr, h := startMounted(t, newCore(t), Config{MaxBodyBytes: 100})
	chunkedHead := "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
	const clients = 200
	for range clients {
		c := dialAt(t, addr)
		_, err := io.WriteString(c, chunkedHead) // and never the body
		require.NoError(t, err)
		require.NoError(t, c.Close())
	}
	for range 20 {
		c := dialAt(t, addr)
		require.NoError(t, c.SetDeadline(time.Now().Add(5*time.Second)))
		_, err := io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/json\r\n"+
			"Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n")
		require.NoError(t, err)
		resp, _ := readResponse(t, bufio.NewReader(c))
		assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	}
	entries := 0
	h.framed.Range(func(any, any) bool { entries++; return true })
	assert.Less(t, entries, clients/2, "entries of departed chunked requests are bounded by the contexts fasthttp reuses")
}
