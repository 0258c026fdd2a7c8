package gateway

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/client"
)

// testMaxResponse is the gateway's client bound in the huge-answer tests: the answers are
// 64 times it (HTTP) and 16 times it (stdio).
const testMaxResponse = 1 << 20

// heapAfterGC is the live heap once the garbage is collected (twice: sync.Pools empty in
// two), and the bytes allocated so far.
func heapAfterGC() (live, allocated uint64) {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc, ms.TotalAlloc
}

// assertBoundedCall runs call and checks that it allocated well under the answer's size
// (at most 8 MiB: the client reads a body up to its MaxResponseBytes, then hangs up) and
// left the live heap where it was, within 4 MiB.
func assertBoundedCall(t *testing.T, answer int, call func()) {
	t.Helper()
	call() // connections, pools and buffers of a first call are not the answer's
	live0, total0 := heapAfterGC()
	call()
	live1, total1 := heapAfterGC()
	t.Logf("answer %d MiB: allocated %.1f MiB during the call, live heap %+.1f MiB", answer>>20,
		float64(total1-total0)/(1<<20), (float64(live1)-float64(live0))/(1<<20))
	assert.Less(t, total1-total0, uint64(8<<20), "allocated during the call")
	assert.Less(t, int64(live1)-int64(live0), int64(4<<20), "live heap growth")
}

// TestBadBackendHugeHTTP: an HTTP backend that answers a call with 64 MiB (a chunked JSON
// body, one event of an event stream) gives its caller the too-large error as soon as
// MaxResponseBytes is passed: the gateway reads no more of it (its allocations stay a few
// MiB), its heap is as before, and it keeps serving both backends.
func TestBadBackendHugeHTTP(t *testing.T) {
	p, urlBad, _ := newBadBackend(t, "bad")
	urlGood, _ := serveHTTP(t, newBackendServer("good", nil), "", nil)
	g, gw := startGateway(t, Config{Backends: []Backend{{Name: "bad", URL: urlBad}, {Name: "good", URL: urlGood}},
		Client: client.Config{MaxResponseBytes: testMaxResponse}})
	require.True(t, g.Status()[0].Up, "%v", g.Status()[0].Err)
	c := connect(t, gw, client.EraModern)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	want := client.Error{Code: -32603, Message: `Backend "bad" sent an answer larger than the gateway accepts`, Data: []byte(`{"backend":"bad"}`)}
	for _, tool := range []string{badHuge, badHugeEvent} {
		assertBoundedCall(t, hugeBytes, func() {
			assert.Equal(t, want, callError(t, ctx, c, "bad__"+tool), tool)
		})
		assert.Less(t, p.hugeSent.Load(), int64(hugeBytes), "the gateway hung up before the end of the answer")
		echoes(t, ctx, c, "good__echo", "good: still")
		echoes(t, ctx, c, "bad__echo", "bad: still")
	}
	assert.True(t, g.Status()[0].Up)
}

// TestBadBackendHugeStdio: a stdio backend whose answer is a 16 MiB line gives its caller
// the too-large error at once (the line names its call), the gateway keeping at most
// MaxResponseBytes of it; the same process keeps serving.
func TestBadBackendHugeStdio(t *testing.T) {
	bad := stdioBackend("bad")
	bad.Env = append(bad.Env, stdioBadBackendEnv+"=1")
	g, gw := startGateway(t, Config{Backends: []Backend{bad, stdioBackend("good")},
		Client: client.Config{MaxResponseBytes: testMaxResponse, RequestTimeout: time.Minute}})
	require.True(t, g.Status()[0].Up, "%v", g.Status()[0].Err)
	c := connect(t, gw, client.EraModern)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	assertBoundedCall(t, stdioHugeLine, func() {
		assert.Equal(t, client.Error{Code: -32603, Message: `Backend "bad" sent an answer larger than the gateway accepts`, Data: []byte(`{"backend":"bad"}`)},
			callError(t, ctx, c, "bad__"+badHuge))
	})
	echoes(t, ctx, c, "good__echo", "good: still")
	echoes(t, ctx, c, "bad__echo", "bad: still")
	assert.Equal(t, 1, g.Status()[0].Connections, "the same process serves")
}
