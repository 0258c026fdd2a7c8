package client

import (
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// echoResponder answers every request line with one fixed response line, allocation-free,
// so the budget below counts the client alone.
func echoResponder(t testing.TB, response string) *stdioTransport {
	t.Helper()
	cr, cw := io.Pipe()
	sr, sw := io.Pipe()
	go func() {
		lr := newLineReader(cr, DefaultMaxLineBytes)
		line := []byte(response + "\n")
		for {
			if _, err := lr.next(); err != nil {
				_ = sw.Close()
				return
			}
			if _, err := sw.Write(line); err != nil {
				return
			}
		}
	}()
	tr, err := newStdioTransport(sr, cw, stdioOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, tr.close()) })
	return tr
}

// stdioRoundTripAllocsBudget is what one stdio round trip may allocate (8 measured): the
// call, its result channel and its id key; the queued line; the response copy handed to
// the caller; the request-timeout timer.
const stdioRoundTripAllocsBudget = 8

func TestStdioRoundTripAllocsBudget(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	tr := echoResponder(t, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}`)
	req := echoReq(1)
	allocs := testing.AllocsPerRun(200, func() {
		if _, err := tr.roundTrip(context.Background(), req, nil, noMessages); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%.1f allocations per round trip", allocs)
	assert.LessOrEqual(t, allocs, float64(stdioRoundTripAllocsBudget))
}

func BenchmarkStdioRoundTrip(b *testing.B) {
	tr := echoResponder(b, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	req := echoReq(1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tr.roundTrip(context.Background(), req, nil, noMessages); err != nil {
			b.Fatal(err)
		}
	}
}
