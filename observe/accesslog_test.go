package observe

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// TestAccessLogLine checks the one line per request: labels, duration, error type, and
// nothing of the arguments.
func TestAccessLogLine(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		switch a.Key {
		case slog.TimeKey:
			return slog.Attr{}
		case "duration":
			return slog.String("duration", "D")
		}
		return a
	}}))
	core := newCore(t, NewAccessLog(logger))
	core.Dispatch(context.Background(), []byte(`{"jsonrpc":"2.0","id":"x1","method":"tools/call","params":{`+meta+`},"name":"echo","arguments":{"text":"secret-argument"}}}`), nil)
	core.Dispatch(context.Background(), []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{`+meta+`},"name":"nope","arguments":{}}}`), nil)
	assert.Equal(t,
		`level=INFO msg="mcp request" method=tools/call tool=echo version=2026-07-28 id=x1 duration=D`+"\n"+
			`level=INFO msg="mcp request" method=tools/call tool=_other version=2026-07-28 id=2 duration=D error_type=-32602`+"\n",
		buf.String())
	assert.NotContains(t, buf.String(), "secret-argument")
}

// TestAccessLogCancelled checks the line of a request nothing was answered to.
func TestAccessLogCancelled(t *testing.T) {
	var buf bytes.Buffer
	a := NewAccessLog(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: dropTime})))
	a.RequestEnd(context.Background(), fastmcp.RequestInfo{Labels: &fastmcp.Labels{Method: "ping", Network: fastmcp.NetworkPipe}},
		fastmcp.RequestOutcome{Duration: 3 * time.Millisecond, Cancelled: true})
	assert.Equal(t, `level=INFO msg="mcp request" method=ping network=pipe duration=3ms cancelled=true`+"\n", buf.String())
}

// TestAccessLogOffBelowInfo checks that a logger above Info writes nothing.
func TestAccessLogOffBelowInfo(t *testing.T) {
	var buf bytes.Buffer
	a := NewAccessLog(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn})))
	a.RequestEnd(context.Background(), fastmcp.RequestInfo{Labels: &fastmcp.Labels{Method: "ping"}}, fastmcp.RequestOutcome{})
	assert.Empty(t, buf.String())
}

func dropTime(_ []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

// orderObserver records the order of its calls in a shared log.
type orderObserver struct {
	name string
	log  *[]string
}

func (o orderObserver) RequestStart(ctx context.Context, _ fastmcp.RequestInfo) context.Context {
	*o.log = append(*o.log, "start "+o.name)
	return ctx
}

func (o orderObserver) RequestEnd(context.Context, fastmcp.RequestInfo, fastmcp.RequestOutcome) {
	*o.log = append(*o.log, "end "+o.name)
}

// TestChain checks the order of a chain (starts in order, ends in reverse) and that nils
// are dropped.
func TestChain(t *testing.T) {
	assert.Nil(t, Chain())
	assert.Nil(t, Chain(nil, nil))
	var log []string
	one := orderObserver{"a", &log}
	assert.Equal(t, fastmcp.Observer(one), Chain(nil, one))
	c := Chain(one, nil, orderObserver{"b", &log})
	ctx := c.RequestStart(context.Background(), fastmcp.RequestInfo{})
	c.RequestEnd(ctx, fastmcp.RequestInfo{}, fastmcp.RequestOutcome{})
	assert.Equal(t, []string{"start a", "start b", "end b", "end a"}, log)
}
