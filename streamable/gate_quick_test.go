package streamable

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// stackBareMount is the mounted handler in a fasthttp.Server without HeaderReceived and
// ErrorHandler, where the gate runs after fasthttp has read the body.
const stackBareMount = "fasthttp-bare"

// startGateStack is startStack with stackBareMount too.
func startGateStack(t *testing.T, stack string, core *fastmcp.Server, cfg Config) (addr string, stats func() Stats) {
	t.Helper()
	if stack != stackBareMount {
		return startStack(t, stack, core, ListenerConfig{Config: cfg})
	}
	h, err := NewRequestHandler(core, cfg)
	require.NoError(t, err)
	fs := &fasthttp.Server{Handler: h.Handler(), NoDefaultContentType: true, CloseOnShutdown: true}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- fs.Serve(ln) }()
	t.Cleanup(func() {
		require.NoError(t, h.Close(context.Background()))
		require.NoError(t, fs.Shutdown())
		_ = ln.Close()
		if err := <-done; !errors.Is(err, net.ErrClosed) {
			require.NoError(t, err)
		}
	})
	return ln.Addr().String(), h.Stats
}

// TestQuickGateDecidesAlone: on every stack, a request the quick gate decides never reaches
// the RequestGate (which here would block until its timeout): its identity reaches the
// tool, its refusal is served, and its panic fails closed with 500 while the listener goes
// on serving. A request the quick gate leaves undecided gets the RequestGate, its identity,
// and its timeout (504). Every answer of a gate closes the connection, the request having
// declared a body.
func TestQuickGateDecidesAlone(t *testing.T) {
	header := func(r GateRequest, name string) string {
		if v := r.Header.Values(name); len(v) == 1 {
			return string(v[0])
		}
		return ""
	}
	quick := func(r GateRequest) (GateDecision, bool) {
		switch header(r, "X-Quick") {
		case "alice":
			return GateDecision{Identity: &fastmcp.Identity{Principal: "alice"}}, true
		case "refuse":
			return GateDecision{Response: &GateResponse{Status: http.StatusUnauthorized, ContentType: "text/plain", Body: []byte("no")}}, true
		case "panic":
			panic("quick gate bug")
		}
		return GateDecision{}, false
	}
	const failed = `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Request gate failed"}}`
	const timedOut = `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Request gate timed out"}}`
	result := func(text string) string {
		return `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"` + text + `"}],` + serverInfo + `}}`
	}
	steps := []struct {
		name, header string
		status       int
		body         string
		fullCalls    int64 // calls of the RequestGate so far
	}{
		{"quick identity reaches the tool", "X-Quick: alice", 200, result("alice"), 0},
		{"quick refusal", "X-Quick: refuse", 401, "no", 0},
		{"quick panic fails closed", "X-Quick: panic", 500, failed, 0},
		{"served after the panic", "X-Quick: alice", 200, result("alice"), 0},
		{"undecided: the RequestGate's identity", "X-Full: bob", 200, result("bob"), 1},
		{"undecided: the RequestGate's timeout", "X-Full: block", 504, timedOut, 2},
	}
	for _, stack := range slices.Concat(bothStacks, []string{stackBareMount}) {
		t.Run(stack, func(t *testing.T) {
			var fullCalls atomic.Int64
			full := func(ctx context.Context, r GateRequest) (GateDecision, error) {
				fullCalls.Add(1)
				if header(r, "X-Full") == "bob" {
					return GateDecision{Identity: &fastmcp.Identity{Principal: "bob"}}, nil
				}
				<-ctx.Done() // a request the quick gate decided would get 504
				return GateDecision{}, ctx.Err()
			}
			var runs atomic.Int64
			addr, stats := startGateStack(t, stack, gateCore(t, &runs), Config{
				RequestGate: full, RequestGateQuick: quick, RequestGateTimeout: 200 * time.Millisecond,
				Logger: slog.New(slog.DiscardHandler),
			})
			for _, step := range steps {
				resp, body := exchangeAt(t, addr, postTo(addr, call("1", "whoami", `{}`), append(callHeaders("whoami"), step.header)...))
				assert.Equal(t, step.status, resp.StatusCode, step.name)
				assert.Equal(t, step.body, body, step.name)
				assert.Equal(t, step.fullCalls, fullCalls.Load(), step.name)
				assert.Equal(t, step.status != http.StatusOK, resp.Close, "%s: a gate's answer to a request with a body closes", step.name)
			}
			assert.Equal(t, int64(3), runs.Load(), "only the admitted requests ran")
			assert.Equal(t, int64(1), stats().GateTimeouts)
		})
	}
}

// TestQuickGateNeedsRequestGate: a quick gate alone is refused, since what it leaves
// undecided would have no gate to go to.
func TestQuickGateNeedsRequestGate(t *testing.T) {
	cfg := Config{RequestGateQuick: quickTestGate}
	_, err := New(newCore(t), ListenerConfig{Config: cfg})
	assert.ErrorIs(t, err, ErrInvalidConfig)
	_, err = NewHandler(newCore(t), cfg)
	assert.ErrorIs(t, err, ErrInvalidConfig)
	_, err = NewRequestHandler(newCore(t), cfg)
	assert.ErrorIs(t, err, ErrInvalidConfig)
}
