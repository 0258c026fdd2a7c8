package gateway

import (
	"context"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// principalHeader names the caller to principalGateway's gate.
const principalHeader = "X-Test-Principal"

// principalGateway is a transparent gateway in front of backendURL whose callers are named
// by principalHeader (an Identity, as an authorization server's token would give).
func principalGateway(t *testing.T, backendURL string) (*Gateway, string) {
	t.Helper()
	srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "gateway", Version: "1"}, nil)
	require.NoError(t, err)
	g, err := New(srv, Config{Backends: []Backend{{Name: "tk", URL: backendURL}}, Logger: slog.New(slog.DiscardHandler),
		MinRestartDelay: 10 * time.Millisecond, MaxRestartDelay: 100 * time.Millisecond})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	g.Start(ctx)
	t.Cleanup(func() { require.NoError(t, g.Close()) })
	gate := func(_ context.Context, r streamable.GateRequest) (streamable.GateDecision, error) {
		if v := r.Header.Values(principalHeader); len(v) > 0 {
			return streamable.GateDecision{Identity: &fastmcp.Identity{Principal: string(v[0])}}, nil
		}
		return streamable.GateDecision{}, nil
	}
	url, _ := serveHTTPWith(t, srv, streamable.ListenerConfig{Config: streamable.Config{RequestGate: gate}}, nil)
	return g, url
}

const declaringMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`

var wireTaskID = regexp.MustCompile(`"taskId":"([^"]+)"`)

// createTask calls slow_compute for 60 s as principal and returns the Gateway's task id.
func createTask(t *testing.T, url, principal string) string {
	t.Helper()
	_, body := post(t, url, "tools/call", "slow_compute",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow_compute","arguments":{"seconds":60,"label":"p"},`+declaringMeta+`}}`, principalHeader, principal)
	m := wireTaskID.FindStringSubmatch(body)
	require.NotNil(t, m, body)
	return m[1]
}

func taskMethod(method, id, extra string) string {
	return `{"jsonrpc":"2.0","id":2,"method":"` + method + `","params":{"taskId":"` + id + `"` + extra + `,` + declaringMeta + `}}`
}

// Over HTTP, with callers told apart by their identity: another principal's id, and an
// unauthenticated caller's, read exactly as an unknown task for tasks/get, tasks/update and
// tasks/cancel; the owner's own cancel is acknowledged.
func TestTaskOfAnotherPrincipal(t *testing.T) {
	_, gw := principalGateway(t, tasksBackend(t))
	id := createTask(t, gw, "alice")
	const unknown = `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params: unknown task"}}`
	for _, req := range []struct{ method, extra string }{{"tasks/get", ""}, {"tasks/update", `,"inputResponses":{}`}, {"tasks/cancel", ""}} {
		_, body := post(t, gw, req.method, id, taskMethod(req.method, id, req.extra), principalHeader, "bob")
		require.Equal(t, unknown, body, req.method)
		_, body = post(t, gw, req.method, id, taskMethod(req.method, id, req.extra))
		require.Equal(t, unknown, body, req.method+" unauthenticated")
	}
	_, body := post(t, gw, "tasks/get", id, taskMethod("tasks/get", id, ""), principalHeader, "alice")
	require.Contains(t, body, `"status":"working"`)
	_, body = post(t, gw, "tasks/cancel", id, taskMethod("tasks/cancel", id, ""), principalHeader, "alice")
	require.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"gateway","version":"1"}}}}`, body)
}

// A task whose backend is down: tasks/get answers the unavailable error, byte for byte.
func TestTaskOfABackendDown(t *testing.T) {
	backend, stop := stoppableTasksBackend(t)
	g, gw := principalGateway(t, backend)
	id := createTask(t, gw, "alice")
	stop()
	const down = `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Backend \"tk\" is unavailable","data":{"backend":"tk"}}}`
	var body string
	waitFor(t, "the backend seen down", func() bool {
		_, body = post(t, gw, "tasks/get", id, taskMethod("tasks/get", id, ""), principalHeader, "alice")
		return !g.Status()[0].Up && strings.Contains(body, `"code":-32603`)
	})
	require.Equal(t, down, body)
}
