package natsbus_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/memstore"
)

const metaTasks = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`

// sink keeps a listen stream's messages and signals each.
type sink struct {
	mu   sync.Mutex
	msgs []string
	got  chan struct{}
}

func (s *sink) Notify(_ context.Context, msg []byte) error {
	s.mu.Lock()
	s.msgs = append(s.msgs, string(msg))
	s.mu.Unlock()
	s.got <- struct{}{}
	return nil
}

func (s *sink) wait(t *testing.T) string {
	t.Helper()
	select {
	case <-s.got:
	case <-time.After(30 * time.Second):
		t.Fatal("no notification")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.msgs[len(s.msgs)-1]
}

// TestTaskNotificationsAcrossReplicasOverNATS: two Servers with the Tasks extension on one
// store, each on its own natsbus connection to one NATS server; the task's cancellation,
// written by A, reaches the listen stream held by B.
func TestTaskNotificationsAcrossReplicasOverNATS(t *testing.T) {
	srv := startNATS(t)
	store := memstore.New(memstore.Config{})
	t.Cleanup(func() { require.NoError(t, store.Close()) })
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	replica := func() *fastmcp.Server {
		s, err := fastmcp.NewServer(fastmcp.Implementation{Name: "test", Version: "1"}, &fastmcp.Config{EventBus: openBus(t, srv, "tasks")})
		require.NoError(t, err)
		s.AddRawTool(fastmcp.Tool{Name: "hold", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(ctx context.Context, _ *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
				select {
				case <-release:
				case <-ctx.Done():
				}
				return fastmcp.ToolResult{Text: "held"}, ctx.Err()
			})
		x, err := tasks.New(store, tasks.Options{Tools: map[string]tasks.Policy{"hold": tasks.Required}})
		require.NoError(t, err)
		x.Register(s)
		t.Cleanup(func() { require.NoError(t, x.Close()) })
		return s
	}
	a, b := replica(), replica()

	created := string(a.Dispatch(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold",`+metaTasks+`}}`), nil))
	m := regexp.MustCompile(`"taskId":"([^"]+)"`).FindStringSubmatch(created)
	require.NotNil(t, m, created)
	id := m[1]

	k := &sink{got: make(chan struct{}, 16)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan []byte)
	go func() {
		done <- b.Dispatch(ctx, []byte(`{"jsonrpc":"2.0","id":"l","method":"subscriptions/listen","params":{`+
			`"notifications":{"taskIds":["`+id+`"]},`+metaTasks+`}}`), k)
	}()
	defer func() { cancel(); <-done }()
	assert.Contains(t, k.wait(t), `"taskIds":["`+id+`"]`)

	reply := string(a.Dispatch(context.Background(), []byte(`{"jsonrpc":"2.0","id":2,"method":"tasks/cancel","params":{"taskId":"`+id+`",`+metaTasks+`}}`), nil))
	require.Contains(t, reply, `"resultType":"complete"`)
	note := k.wait(t)
	assert.True(t, strings.HasPrefix(note, `{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"`+id+`","status":"cancelled"`), note)
}
