package tasks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"

	santhosh "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/internal/wireschema"
	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/memstore"
)

// The _meta of requests: one declaring the extension (and elicitation, for input requests),
// one declaring nothing.
const (
	metaTasks = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	metaNone  = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	// serverMeta closes every result of the test server.
	serverMeta = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"test","version":"1.0.0"}}`
	// t0 is the time of a synctest bubble's start, as the wire shows it.
	t0 = "2000-01-01T00:00:00.000Z"
)

// harness is a server with the extension over a memory store, its task ids numbered
// task-1, task-2, … Build it inside the synctest bubble of the test.
type harness struct {
	t     testing.TB
	srv   *fastmcp.Server
	x     *tasks.Tasks
	store tasks.Store
}

func newHarness(t testing.TB, opts tasks.Options, register func(*fastmcp.Server)) *harness {
	t.Helper()
	return newHarnessOn(t, memstore.New(memstore.Config{}), opts, register)
}

// newHarnessOn is newHarness over store, which it closes at the end.
func newHarnessOn(t testing.TB, store tasks.Store, opts tasks.Options, register func(*fastmcp.Server)) *harness {
	t.Helper()
	srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "test", Version: "1.0.0"}, nil)
	require.NoError(t, err)
	register(srv)
	x, err := tasks.New(store, opts)
	require.NoError(t, err)
	var mu sync.Mutex
	n := 0
	tasks.SetIDs(x, func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return "task-" + strconv.Itoa(n)
	})
	x.Register(srv)
	t.Cleanup(func() {
		require.NoError(t, x.Close())
		require.NoError(t, store.Close())
	})
	return &harness{t: t, srv: srv, x: x, store: store}
}

// send dispatches one literal message and returns the reply.
func (h *harness) send(msg string) string {
	h.t.Helper()
	return h.sendCtx(context.Background(), msg)
}

func (h *harness) sendCtx(ctx context.Context, msg string) string {
	h.t.Helper()
	return string(h.srv.Dispatch(ctx, []byte(msg), nil))
}

// The extension's shapes, from testdata/tasks.schema.json.
var (
	taskSchemaOnce sync.Once
	taskSchemas    map[string]*santhosh.Schema
)

func taskSchema(t testing.TB, def string) *santhosh.Schema {
	t.Helper()
	taskSchemaOnce.Do(func() {
		raw, err := os.ReadFile("testdata/tasks.schema.json")
		require.NoError(t, err)
		doc, err := santhosh.UnmarshalJSON(bytes.NewReader(raw))
		require.NoError(t, err)
		c := santhosh.NewCompiler()
		require.NoError(t, c.AddResource("mem:///tasks.schema.json", doc))
		taskSchemas = map[string]*santhosh.Schema{}
		for _, d := range []string{"CreateTaskResult", "GetTaskResult", "EmptyAck", "TaskStatusNotification", "DetailedTask"} {
			s, err := c.Compile("mem:///tasks.schema.json#/$defs/" + d)
			require.NoError(t, err)
			taskSchemas[d] = s
		}
	})
	s := taskSchemas[def]
	require.NotNil(t, s, def)
	return s
}

// requireResult checks a success response against the core schema (JSONRPCResultResponse)
// and its result against the extension's definition def.
func requireResult(t testing.TB, def, msg string) {
	t.Helper()
	wireschema.RequireValid(t, "JSONRPCResultResponse", []byte(msg))
	var env struct{ Result json.RawMessage }
	require.NoError(t, json.Unmarshal([]byte(msg), &env))
	wireschema.RequireValid(t, "Result", env.Result)
	v, err := santhosh.UnmarshalJSON(bytes.NewReader(env.Result))
	require.NoError(t, err)
	require.NoError(t, taskSchema(t, def).Validate(v), "%s: %s", def, env.Result)
}

// requireNotification checks a notifications/tasks message.
func requireNotification(t testing.TB, msg string) {
	t.Helper()
	wireschema.RequireValid(t, "JSONRPCNotification", []byte(msg))
	v, err := santhosh.UnmarshalJSON(bytes.NewReader([]byte(msg)))
	require.NoError(t, err)
	require.NoError(t, taskSchema(t, "TaskStatusNotification").Validate(v), msg)
}

// listenSink collects a listen stream's messages and signals each one.
type listenSink struct {
	mu   sync.Mutex
	msgs []string
	got  chan struct{}
}

func newListenSink() *listenSink { return &listenSink{got: make(chan struct{}, 64)} }

func (k *listenSink) Notify(_ context.Context, msg []byte) error {
	k.mu.Lock()
	k.msgs = append(k.msgs, string(msg))
	k.mu.Unlock()
	k.got <- struct{}{}
	return nil
}

func (k *listenSink) messages() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.msgs...)
}

// requireErrorObject checks an error response against the core schema
// (JSONRPCErrorResponse) and its error object against def (InvalidParamsError,
// MethodNotFoundError, InternalError).
func requireErrorObject(t testing.TB, def, msg string) {
	t.Helper()
	wireschema.RequireValid(t, "JSONRPCErrorResponse", []byte(msg))
	var env struct{ Error json.RawMessage }
	require.NoError(t, json.Unmarshal([]byte(msg), &env))
	wireschema.RequireValid(t, def, env.Error)
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}
