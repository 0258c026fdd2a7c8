package streamable

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// testGate decides by the request's X-Gate header, so that one gate serves every case of
// the table.
func testGate(ctx context.Context, r GateRequest) (GateDecision, error) {
	var mode string
	if v := r.Header.Values("X-Gate"); len(v) == 1 {
		mode = string(v[0])
	}
	switch mode {
	case "alice":
		return GateDecision{Identity: &fastmcp.Identity{Principal: "alice"}}, nil
	case "refuse":
		return GateDecision{Response: &GateResponse{
			Status: http.StatusUnauthorized, ContentType: "application/json",
			Header: map[string]string{"WWW-Authenticate": `Bearer resource_metadata="http://localhost/.well-known/oauth-protected-resource"`},
			Body:   []byte(`{"error":"invalid_token"}`),
		}}, nil
	case "untyped":
		return GateDecision{Response: &GateResponse{Status: http.StatusForbidden, Body: []byte("forbidden")}}, nil
	case "echo": // what the gate sees, with no body read yet
		host := "no host"
		if len(r.Header.Values("Host")) == 1 {
			host = "host"
		}
		auth := r.Header.Values("Authorization")
		return GateDecision{Response: &GateResponse{Status: http.StatusTeapot, ContentType: "text/plain",
			Body: []byte(string(r.Method) + " " + string(r.Path) + " " + string(auth[0]) + " " + host)}}, nil
	case "error":
		return GateDecision{}, errors.New("introspection endpoint down")
	case "panic":
		panic("gate bug")
	case "bad status":
		return GateDecision{Response: &GateResponse{Status: 1000}}, nil
	case "block":
		<-ctx.Done()
		return GateDecision{}, ctx.Err()
	}
	if string(r.Path) == "/.well-known/oauth-protected-resource" {
		return GateDecision{Response: &GateResponse{Status: http.StatusOK, ContentType: "application/json",
			Body: []byte(`{"resource":"http://localhost/mcp"}`)}}, nil
	}
	return GateDecision{}, nil
}

// gateCore is newCore with a tool that reports the caller's principal and counts its runs.
func gateCore(t testing.TB, runs *atomic.Int64) *fastmcp.Server {
	core := newCore(t)
	fastmcp.AddTool(core, fastmcp.Tool{Name: "whoami", Description: "Who am I"}, func(ctx context.Context, _ *fastmcp.Request, _ struct{}) (fastmcp.ToolResult, error) {
		runs.Add(1)
		if id := fastmcp.IdentityFrom(ctx); id != nil {
			return fastmcp.ToolResult{Text: id.Principal}, nil
		}
		return fastmcp.ToolResult{Text: "anonymous"}, nil
	})
	return core
}

// gateSeen is what a client sees of one exchange.
type gateSeen struct {
	Status                     int
	ContentType, WWWAuth, Body string
	HasContentType             bool
	Runs                       int64 // tool runs during the exchange
}

// TestRequestGateBothStacks runs one table of gate decisions against the native listener and
// the net/http adapter: each case's status, headers and body are the same on both, literal,
// and a refused request never reaches the tool.
func TestRequestGateBothStacks(t *testing.T) {
	whoami := func(addr, mode string) string {
		extra := append(callHeaders("whoami"), "Authorization: Bearer t0ken")
		if mode != "" {
			extra = append(extra, "X-Gate: "+mode)
		}
		return postTo(addr, call("1", "whoami", `{}`), extra...)
	}
	result := func(text string) string {
		return `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"` + text + `"}],` + serverInfo + `}}`
	}
	const failed = `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Request gate failed"}}`
	tests := []struct {
		name string
		raw  func(addr string) string
		want gateSeen
	}{
		{"admitted", func(a string) string { return whoami(a, "") },
			gateSeen{Status: 200, ContentType: "application/json", HasContentType: true, Body: result("anonymous"), Runs: 1}},
		{"identity reaches the core", func(a string) string { return whoami(a, "alice") },
			gateSeen{Status: 200, ContentType: "application/json", HasContentType: true, Body: result("alice"), Runs: 1}},
		{"refused with the gate's response", func(a string) string { return whoami(a, "refuse") },
			gateSeen{Status: 401, ContentType: "application/json", HasContentType: true, Body: `{"error":"invalid_token"}`,
				WWWAuth: `Bearer resource_metadata="http://localhost/.well-known/oauth-protected-resource"`}},
		{"gate response without a content type", func(a string) string { return whoami(a, "untyped") },
			gateSeen{Status: 403, Body: "forbidden"}},
		{"gate sees method, raw path, headers", func(a string) string {
			return strings.Replace(whoami(a, "echo"), "POST /mcp ", "POST /mcp?x=1 ", 1)
		}, gateSeen{Status: 418, ContentType: "text/plain", HasContentType: true, Body: "POST /mcp Bearer t0ken host"}},
		{"gate's own route, before path and method checks", func(a string) string {
			return "GET /.well-known/oauth-protected-resource HTTP/1.1\r\nHost: " + a + "\r\n\r\n"
		}, gateSeen{Status: 200, ContentType: "application/json", HasContentType: true, Body: `{"resource":"http://localhost/mcp"}`}},
		{"gate error fails closed", func(a string) string { return whoami(a, "error") },
			gateSeen{Status: 500, ContentType: "application/json", HasContentType: true, Body: failed}},
		{"gate panic fails closed", func(a string) string { return whoami(a, "panic") },
			gateSeen{Status: 500, ContentType: "application/json", HasContentType: true, Body: failed}},
		{"invalid status fails closed", func(a string) string { return whoami(a, "bad status") },
			gateSeen{Status: 500, ContentType: "application/json", HasContentType: true, Body: failed}},
		{"gate timeout", func(a string) string { return whoami(a, "block") },
			gateSeen{Status: 504, ContentType: "application/json", HasContentType: true,
				Body: `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Request gate timed out"}}`}},
	}
	got := map[string][]gateSeen{}
	for _, run := range gateRuns(bothStacks) {
		t.Run(run.name, func(t *testing.T) {
			var runs atomic.Int64
			addr, stats := startStack(t, run.stack, gateCore(t, &runs), ListenerConfig{
				Config: Config{
					RequestGate:        testGate,
					RequestGateQuick:   run.quick,
					RequestGateTimeout: 300 * time.Millisecond,
					Logger:             slog.New(slog.NewTextHandler(io.Discard, nil)),
				},
			})
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					before := runs.Load()
					resp, body := exchangeAt(t, addr, tc.raw(addr))
					r := gateSeen{
						Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), WWWAuth: resp.Header.Get("WWW-Authenticate"),
						Body: body, Runs: runs.Load() - before,
					}
					_, r.HasContentType = resp.Header["Content-Type"]
					assert.Equal(t, tc.want, r)
					got[run.name] = append(got[run.name], r)
				})
			}
			assert.Equal(t, int64(1), stats().GateTimeouts)
		})
	}
	require.Len(t, got[stackNative], len(tests))
	for _, run := range gateRuns(bothStacks) {
		assert.Equal(t, got[stackNative], got[run.name], "%s answers as the native listener without a quick gate", run.name)
	}
}

// gateRun is a stack, with or without a quick gate in front of testGate.
type gateRun struct {
	name, stack string
	quick       QuickGate
}

// gateRuns are the stacks, each without a quick gate (named as the stack) and with
// quickTestGate ("+quick").
func gateRuns(stacks []string) []gateRun {
	var runs []gateRun
	for _, s := range stacks {
		runs = append(runs, gateRun{name: s, stack: s}, gateRun{name: s + "+quick", stack: s, quick: quickTestGate})
	}
	return runs
}

// quickTestGate decides inline as testGate would, except what testGate waits or fails for
// ("block", "error"), which it leaves to testGate.
func quickTestGate(r GateRequest) (GateDecision, bool) {
	if v := r.Header.Values("X-Gate"); len(v) == 1 && (string(v[0]) == "block" || string(v[0]) == "error") {
		return GateDecision{}, false
	}
	d, err := testGate(context.Background(), r)
	return d, err == nil
}
