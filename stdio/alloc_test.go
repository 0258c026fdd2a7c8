//go:build !race

package stdio

import (
	"bytes"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Framing a line into a reused buffer allocates nothing.
func TestAllocsFraming(t *testing.T) {
	line := call("1", "echo", `{"text":"x"}`) + "\r\n"
	in := strings.NewReader("")
	lr := newLineReader(in, DefaultMaxLineBytes)
	buf := make([]byte, 0, 512)
	input := []byte(strings.Repeat(line, 200))
	allocs := testing.AllocsPerRun(100, func() {
		in.Reset(string(input)) // the conversion is outside the budget: see below
		for {
			l, _, err := lr.next(buf)
			if err != nil {
				lr.err = nil
				break
			}
			buf = l
		}
	})
	require.LessOrEqual(t, allocs, 1.0, "only the test's string conversion")
}

// Checking and escaping a clean reply allocates nothing.
func TestAllocsWire(t *testing.T) {
	reply := []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"hi"}]}}`)
	var scratch []byte
	allocs := testing.AllocsPerRun(1000, func() {
		if !bytes.Equal(wire(&scratch, reply), reply) {
			t.Fatal("changed")
		}
	})
	require.Zero(t, allocs)
}

// The transport's own share of a request's allocations is nothing: server/discover, which
// the core answers from precomputed bytes, costs one allocation per request end to end (the
// executor's job context).
func TestAllocsPerRequest(t *testing.T) {
	const n = 20000
	driveStdio(t, memPipe, "discover", 64, 2, 500) // warm the pools
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	require.Equal(t, n, driveStdio(t, memPipe, "discover", 64, 2, n))
	runtime.ReadMemStats(&after)
	perRequest := float64(after.Mallocs-before.Mallocs) / n
	t.Logf("%.2f allocations per request", perRequest)
	require.Less(t, perRequest, 1.25, "one, plus the server set-up spread over the requests")
}
