package client

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"sync"
	"testing"

	santhosh "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fixtures"
	"github.com/fastmcp-go/fastmcp/internal/wireschema"
	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/memstore"
)

// tasksServer is the conformance fixtures' server with the tasks extension over a memory
// store, the task tools given fixtures.TaskPolicies unless opts.Tools says otherwise. Build
// it inside the synctest bubble of a test that uses one.
func tasksServer(t testing.TB, opts tasks.Options) *fastmcp.Server {
	t.Helper()
	srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "tasks-test", Version: "1.0.0"}, nil)
	require.NoError(t, err)
	require.NoError(t, fixtures.Register(srv, "conformance"))
	if opts.Tools == nil {
		opts.Tools = fixtures.TaskPolicies()
	}
	store := memstore.New(memstore.Config{})
	x, err := tasks.New(store, opts)
	require.NoError(t, err)
	x.Register(srv)
	t.Cleanup(func() {
		require.NoError(t, x.Close())
		require.NoError(t, store.Close())
	})
	return srv
}

// sentRequest is one request the client handed its transport, with the headers it mirrored.
type sentRequest struct {
	method, name string // Mcp-Method and Mcp-Name
	body         []byte
}

// recorder is a transport that records every request before passing it on.
type recorder struct {
	transport
	mu   sync.Mutex
	sent []sentRequest
}

func (r *recorder) roundTrip(ctx context.Context, req []byte, hdr *headers, onMessage func([]byte) ([]byte, error)) ([]byte, error) {
	r.mu.Lock()
	r.sent = append(r.sent, sentRequest{method: hdr.method, name: hdr.name, body: bytes.Clone(req)})
	r.mu.Unlock()
	return r.transport.roundTrip(ctx, req, hdr, onMessage)
}

// count is how many requests of method were sent.
func (r *recorder) count(method string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, s := range r.sent {
		if s.method == method {
			n++
		}
	}
	return n
}

// requireValid checks every recorded request against the schema definition it must match and
// its mirrored headers: Mcp-Name is the task id on tasks/*.
func (r *recorder) requireValid(t testing.TB) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.sent {
		method := text(s.body, "method")
		assert.Equal(t, method, s.method, "Mcp-Method mirrors the method")
		wireschema.RequireValid(t, "JSONRPCRequest", s.body)
		if bytes.Contains(s.body, []byte(`"extensions":`)) {
			requireTaskSchema(t, "DeclaresTasks", s.body)
		}
		switch method {
		case "tools/call":
			wireschema.RequireValid(t, "CallToolRequest", s.body)
		case "subscriptions/listen":
			wireschema.RequireValid(t, "SubscriptionsListenRequest", s.body)
		case "tasks/get", "tasks/update", "tasks/cancel":
			def := map[string]string{"tasks/get": "GetTaskRequest", "tasks/update": "UpdateTaskRequest", "tasks/cancel": "CancelTaskRequest"}[method]
			requireTaskSchema(t, def, s.body)
			assert.Equal(t, text(decode.Lookup(s.body, "params").Raw(), "taskId"), s.name, "Mcp-Name mirrors the taskId")
		default:
			t.Fatalf("a task test sent %s", s.body)
		}
	}
}

// directTasks is a Client in-process to srv whose requests r records.
func directTasks(t testing.TB, srv *fastmcp.Server, cfg Config) (*Client, *recorder) {
	t.Helper()
	if cfg.Era == EraAuto {
		cfg.Era = EraModern // the in-process server is modern; the tests count every request
	}
	cfg, err := cfg.withDefaults()
	require.NoError(t, err)
	r := &recorder{transport: coreTransport(srv, cfg.RequestTimeout)}
	c, err := newClient(context.Background(), r, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return c, r
}

// The requests of the extension, from testdata/tasks-requests.schema.json.
var (
	taskSchemaOnce sync.Once
	taskSchemas    map[string]*santhosh.Schema
	taskSchemaErr  error
)

// requireTaskSchema checks msg against definition def of testdata/tasks-requests.schema.json.
func requireTaskSchema(t testing.TB, def string, msg []byte) {
	t.Helper()
	taskSchemaOnce.Do(func() {
		raw, err := os.ReadFile("testdata/tasks-requests.schema.json")
		if err != nil {
			taskSchemaErr = err
			return
		}
		doc, err := santhosh.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			taskSchemaErr = err
			return
		}
		c := santhosh.NewCompiler()
		if taskSchemaErr = c.AddResource("mem:///tasks-requests.schema.json", doc); taskSchemaErr != nil {
			return
		}
		taskSchemas = map[string]*santhosh.Schema{}
		for _, d := range []string{"DeclaresTasks", "GetTaskRequest", "UpdateTaskRequest", "CancelTaskRequest"} {
			s, err := c.Compile("mem:///tasks-requests.schema.json#/$defs/" + d)
			if err != nil {
				taskSchemaErr = err
				return
			}
			taskSchemas[d] = s
		}
	})
	require.NoError(t, taskSchemaErr)
	s := taskSchemas[def]
	require.NotNil(t, s, def)
	v, err := santhosh.UnmarshalJSON(bytes.NewReader(msg))
	require.NoError(t, err)
	require.NoError(t, s.Validate(v), "%s: %s", def, msg)
}

// accept returns an elicitation handler accepting with content, recording each request's
// message.
func accept(content string, asked *[]string, mu *sync.Mutex) InputHandler {
	return func(_ context.Context, params json.RawMessage) (json.RawMessage, error) {
		mu.Lock()
		*asked = append(*asked, text(params, "message"))
		mu.Unlock()
		return json.RawMessage(`{"action":"accept","content":` + content + `}`), nil
	}
}
