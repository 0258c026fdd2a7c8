package fastmcp

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
)

type benchNumbersArgs struct {
	MS   int64   `json:"ms"`
	List []int64 `json:"list,omitempty"`
}

// hugeNumbersCall is a tools/call of 330 bytes whose arguments hold 20 integers with huge
// exponents (issue 10, defect 12): each once cost ~60 ms of exact arithmetic in the validator.
var hugeNumbersCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":1e999999,"list":[` +
	strings.TrimSuffix(strings.Repeat("1e999999,", 19), ",") + `]},` + meta + `}}`

func newNumbersServer(tb testing.TB) *Server {
	s := newTestServer(tb, nil)
	AddTool(s, Tool{Name: "sleep"}, func(_ context.Context, _ *Request, in benchNumbersArgs) (ToolResult, error) {
		return ToolResult{Text: "slept"}, nil
	})
	return s
}

// BenchmarkDispatchNumbers measures a tools/call whose integer arguments are written with huge
// exponents: its cost must stay bounded by the message's length.
func BenchmarkDispatchNumbers(b *testing.B) {
	s := newNumbersServer(b)
	b.Run("numbers=huge-exponent", func(b *testing.B) {
		var m decode.Message
		msg := []byte(hugeNumbersCall)
		dst := make([]byte, 0, 1024)
		b.ReportAllocs()
		b.SetBytes(int64(len(msg)))
		for b.Loop() {
			dst = dispatchOnce(b, s, &m, msg, dst)
		}
	})
}

// TestBenchmarkDispatchNumbers checks the benchmark's body: the arguments are valid integers
// for the schema, refused by the Go type in the validator's words.
func TestBenchmarkDispatchNumbers(t *testing.T) {
	s := newNumbersServer(t)
	var m decode.Message
	out := dispatchOnce(t, s, &m, []byte(hugeNumbersCall), nil)
	assert.Contains(t, string(out), `"text":"Invalid arguments: /list/18: must be <= 9223372036854775807, got 1e999999"}],"isError":true`)
}

// TestValidationObservesCancellation: a request cancelled while its arguments are validated
// is answered with nothing, and its handler never runs.
func TestValidationObservesCancellation(t *testing.T) {
	s := newTestServer(t, nil)
	var ran atomic.Int32
	s.AddRawTool(Tool{Name: "sum", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}}}}`)},
		func(context.Context, *Request, json.RawMessage) (ToolResult, error) {
			ran.Add(1)
			return ToolResult{Text: "done"}, nil
		})
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sum","arguments":{"a":[` +
		strings.TrimSuffix(strings.Repeat("1e999999,", 3000), ",") + `]},` + meta + `}}`
	assert.Contains(t, dispatch(t, s, msg), `"text":"done"`)
	require.Equal(t, int32(1), ran.Load())

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.Nil(t, s.Dispatch(ctx, []byte(msg), nil))
	assert.Equal(t, int32(1), ran.Load(), "the handler ran after the request was cancelled")
}
