package client

import (
	"bufio"
	"context"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// allocated returns how many bytes fn allocated (every goroutine's: the test runs alone).
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Issue 21, 5: one big event costs about the limit, not three times it: the event's data
// is read into one buffer, capped at MaxResponseBytes, and the response handed over without
// a copy. The bound is on everything allocated during the call, so any extra copy of the
// event shows.
func TestSSEEventMemoryBounded(t *testing.T) {
	const limit = 4 << 20
	for _, tc := range []struct {
		name string
		size int // bytes of text in the event's response
		ok   bool
	}{
		{"within the limit", limit - 1024, true},
		{"past the limit", 3 * limit, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Repeat("x", tc.size)
			f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
				w.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\ndata: ")
				w.WriteString(`{"jsonrpc":"2.0","id":` + idOf(r.body) + `,"result":{"resultType":"complete","content":[{"type":"text","text":"`)
				w.WriteString(text)
				w.WriteString(`"}]}}` + "\n\n")
				return false
			})
			c := connect(t, f.url(), Config{Era: EraModern, MaxResponseBytes: limit})
			var res *CallToolResult
			var err error
			n := allocated(func() { res, err = c.CallTool(context.Background(), "big", nil) })
			if tc.ok {
				require.NoError(t, err)
				assert.Equal(t, tc.size+len(`[{"type":"text","text":""}]`), len(res.Content))
			} else {
				require.ErrorIs(t, err, ErrResponseTooLarge)
				assert.EqualError(t, err, "client: response exceeds MaxResponseBytes: event data > "+strconv.Itoa(limit)+" bytes")
			}
			// Growing one buffer to the limit by doubling allocates under twice the limit.
			assert.Less(t, n, uint64(2*limit+limit/4), "bytes allocated for one event")
		})
	}
}
