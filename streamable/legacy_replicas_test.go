package streamable

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// replicaBus is an in-memory fastmcp.EventBus shared by the cores of several replicas; it
// delivers synchronously, as a bus whose subscribers never block.
type replicaBus struct {
	mu   sync.Mutex
	subs map[int]func(fastmcp.Event)
	next int
}

func (b *replicaBus) Publish(e fastmcp.Event) {
	b.mu.Lock()
	fns := make([]func(fastmcp.Event), 0, len(b.subs))
	for _, f := range b.subs {
		fns = append(fns, f)
	}
	b.mu.Unlock()
	for _, f := range fns {
		f(e)
	}
}

func (b *replicaBus) Subscribe(deliver func(fastmcp.Event)) func() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.subs == nil {
		b.subs = map[int]func(fastmcp.Event){}
	}
	id := b.next
	b.next++
	b.subs[id] = deliver
	return func() {
		b.mu.Lock()
		delete(b.subs, id)
		b.mu.Unlock()
	}
}

// askCore is a core on bus with legacyCore's ask tool: a form elicitation, then a greeting.
func askCore(t *testing.T, bus fastmcp.EventBus) *fastmcp.Server {
	t.Helper()
	s, err := fastmcp.NewServer(fastmcp.Implementation{Name: "test", Version: "1.0.0"}, &fastmcp.Config{EventBus: bus, Logger: discardLogger})
	require.NoError(t, err)
	s.AddRawTool(fastmcp.Tool{Name: "ask", Description: "Asks for a name", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
			var a struct {
				Action  string            `json:"action"`
				Content map[string]string `json:"content"`
			}
			if ok, err := r.InputResponse("name", &a); err != nil || !ok {
				return fastmcp.ToolResult{}, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{
					"name": fastmcp.ElicitForm("Your name?", json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)),
				}}
			}
			return fastmcp.ToolResult{Text: "hello, " + a.Content["name"] + " (" + a.Action + ")"}, nil
		})
	return s
}

// An elicitation started on replica A is answered by a POST to replica B: the answer goes
// through the replicas' shared bus and the tool on A completes. An answer from another
// principal, POSTed to B, does not complete it, as on A itself.
func TestLegacyAnswerOnAnotherReplica(t *testing.T) {
	for _, stack := range bothStacks {
		t.Run(stack, func(t *testing.T) {
			bus := &replicaBus{}
			cfg := ListenerConfig{Config: Config{Logger: discardLogger, RequestGate: userGate, RequestTimeout: time.Minute}}
			addrA, _ := startStack(t, stack, askCore(t, bus), cfg)
			addrB, _ := startStack(t, stack, askCore(t, bus), cfg)

			s := openPost(t, addrA, legacyPost(addrA, legacyCall("7", "ask", `{}`), v1125, "X-Test-User: alice"))
			require.Equal(t, http.StatusOK, s.resp.StatusCode)
			ask, ok := s.next()
			require.True(t, ok)
			id := idOf(t, ask)
			assert.Equal(t, elicitRequest(id, v1125), ask)

			answer := func(user, name string) {
				t.Helper()
				resp, body := exchangeAt(t, addrB, legacyPost(addrB, `{"jsonrpc":"2.0","id":`+id+`,"result":{"action":"accept","content":{"name":"`+name+`"}}}`, v1125, "X-Test-User: "+user))
				assert.Equal(t, http.StatusAccepted, resp.StatusCode)
				assert.Empty(t, body)
			}
			answer("mallory", "Mallory") // dropped on A: another principal
			answer("alice", "Ada")
			final, ok := s.next()
			require.True(t, ok)
			assert.Equal(t, `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello, Ada (accept)"}]}}`, final)
			requireLegacyValid(t, v1125, "CallToolResult", final)
			_, more := s.next()
			assert.False(t, more, "the stream ends after the response")
		})
	}
}
