package streamable

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// subscriptionURIs returns n distinct absolute URIs of about size bytes each.
func subscriptionURIs(n, size int) []string {
	uris := make([]string, n)
	for i := range uris {
		prefix := "file:///data/" + strconv.Itoa(i) + "/"
		uris[i] = prefix + strings.Repeat("u", size-len(prefix))
	}
	return uris
}

// resourceFilter is a listen filter subscribing to uris.
func resourceFilter(uris []string) string {
	return `{"resourceSubscriptions":["` + strings.Join(uris, `","`) + `"]}`
}

// resourceCore is a core that honours resourceSubscriptions.
func resourceCore(t testing.TB, cfg *fastmcp.Config) *fastmcp.Server {
	t.Helper()
	core, err := fastmcp.NewServer(fastmcp.Implementation{Name: "test", Version: "1.0.0"}, cfg)
	require.NoError(t, err)
	core.AddResource(fastmcp.Resource{URI: "file:///readme", Name: "readme"}, func(context.Context, *fastmcp.Request, string) ([]fastmcp.ResourceContents, error) {
		return []fastmcp.ResourceContents{{URI: "file:///readme", Text: "hi"}}, nil
	})
	return core
}

// openListen opens a listen stream on addr and reads its response head and its first event
// (the acknowledgement) without keeping either; it returns the open connection.
func openListen(t testing.TB, addr, id, filter string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	require.NoError(t, c.SetDeadline(time.Now().Add(30*time.Second)))
	_, err = io.WriteString(c, postTo(addr, listenBody(id, filter), "Mcp-Method: subscriptions/listen"))
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReaderSize(c, 4096), nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	skipEvent(t, bufio.NewReaderSize(resp.Body, 4096), `"notifications/subscriptions/acknowledged"`)
	return c
}

// skipEvent reads one event from an event stream and checks that its first bytes contain
// want.
func skipEvent(t testing.TB, br *bufio.Reader, want string) {
	t.Helper()
	var start []byte
	data, lineStart := false, true // a data line began; the next bytes start a line
	for {
		line, err := br.ReadSlice('\n')
		if err != nil && err != bufio.ErrBufferFull {
			require.NoError(t, err)
		}
		if len(start) < 256 {
			start = append(start, line...)
		}
		if lineStart && bytes.HasPrefix(line, []byte("data:")) {
			data = true
		}
		if lineStart && data && len(bytes.TrimRight(line, "\r\n")) == 0 {
			break
		}
		lineStart = err == nil
	}
	require.Contains(t, string(start), want)
}

// heapInUse returns the live heap after two collections (sync.Pool contents survive one).
func heapInUse() int64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// TestListenHoldsNoRequest opens listen streams of 1,000 long URIs (a request of 1.9 MB) on
// each stack and measures the heap each stream adds once open: the stream keeps its
// subscription, not its request (body, decoded message, job buffers), and URIs other streams
// listen to are not copied again.
func TestListenHoldsNoRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 30 MB")
	}
	streams := 16
	if raceEnabled {
		streams = 4
	}
	uris := subscriptionURIs(fastmcp.MaxResourceSubscriptions, 1900)
	filter := resourceFilter(uris)
	for _, stack := range bothStacks {
		t.Run(stack, func(t *testing.T) {
			core := resourceCore(t, nil)
			addr, _ := startStack(t, stack, core, ListenerConfig{Config: Config{KeepAliveInterval: time.Hour}})
			openListen(t, addr, "0", filter) // the URIs' one copy
			before := heapInUse()
			for i := range streams {
				openListen(t, addr, strconv.Itoa(i+1), filter)
			}
			require.Equal(t, streams+1, core.Subscribers())
			per := (heapInUse() - before) / int64(streams)
			t.Logf("%s: %d B of heap per open listen stream of %d URIs (request %d B)", stack, per, len(uris), len(filter))
			assert.Less(t, per, int64(96<<10))
		})
	}
}

// TestListenRefusedBeforeTheStream: a listen the core refuses before acknowledging it gets an
// ordinary JSON response with the error's status, on both stacks, not a stream: past the
// subscription budget 503 -32603 (exact bytes on the native listener, which writes them
// itself), an invalid filter 200 -32602. The budget returns when a stream ends.
func TestListenRefusedBeforeTheStream(t *testing.T) {
	const refused = `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Server subscription capacity exhausted"}}`
	for _, stack := range bothStacks {
		t.Run(stack, func(t *testing.T) {
			// One stream with the one-byte id "1" and no URIs: 256 + 1 bytes.
			core := resourceCore(t, &fastmcp.Config{MaxSubscriptionBytes: 257})
			addr, stats := startStack(t, stack, core, ListenerConfig{Config: Config{KeepAliveInterval: 10 * time.Millisecond}})
			first := openListen(t, addr, "1", `{"resourcesListChanged":true}`)

			raw := postTo(addr, listenBody("2", `{"resourcesListChanged":true}`), "Mcp-Method: subscriptions/listen")
			if stack == stackNative {
				c := dialAt(t, addr)
				_, err := io.WriteString(c, raw)
				require.NoError(t, err)
				got, err := io.ReadAll(c)
				require.NoError(t, err)
				assert.Equal(t, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: 99\r\nConnection: close\r\n\r\n"+refused, string(got))
			} else {
				resp, body := exchangeAt(t, addr, raw)
				assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
				assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
				assert.Equal(t, refused, body)
			}
			resp, body := exchangeAt(t, addr, postTo(addr, listenBody("3", `{"toolsListChanged":"yes"}`), "Mcp-Method: subscriptions/listen"))
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			assert.Equal(t, `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: toolsListChanged, promptsListChanged and resourcesListChanged must be booleans"}}`, body)

			require.NoError(t, first.Close()) // a keepalive fails: the stream ends, its bytes return
			require.Eventually(t, func() bool { return core.Subscribers() == 0 && stats().OpenStreams == 0 }, 5*time.Second, time.Millisecond)
			openListen(t, addr, "2", `{"resourcesListChanged":true}`)
		})
	}
}
